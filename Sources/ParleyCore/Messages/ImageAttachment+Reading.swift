import Foundation

/// The image formats Parley accepts: the ones the vision APIs and Tesseract all read.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// PNG (`image/png`).
    case png
    /// JPEG (`image/jpeg`).
    case jpeg
    /// WebP (`image/webp`).
    case webp

    /// The media type, e.g. `image/png`.
    public var mimeType: String { "image/\(rawValue)" }

    /// The format `data` is in, read from its first bytes; `nil` for anything else.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: pngSignature) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}

/// Why an image was refused, in one sentence that says what to do.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at the path.
    case notFound(path: String)
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// Larger than the limit.
    case tooLarge(name: String, bytes: Int, limit: Int)
    /// Empty.
    case empty(name: String)
    /// Not PNG, JPEG or WebP.
    case unsupportedFormat(name: String)
    /// The data ends before the image does.
    case truncated(name: String, format: ImageFormat)
    /// The structure is broken.
    case corrupt(name: String, format: ImageFormat, reason: String)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "There is no image at \(path)."
        case .unreadable(let path, let reason):
            return "The image \(path) could not be read (\(reason))."
        case .tooLarge(let name, let bytes, let limit):
            return "The image \(name) is \(Self.megabytes(bytes)); images up to \(Self.megabytes(limit)) are accepted: resize or compress it."
        case .empty(let name):
            return "The image \(name) is empty."
        case .unsupportedFormat(let name):
            return "\(name) is not a PNG, JPEG or WebP image; convert it to one of those."
        case .truncated(let name, let format):
            return "The \(format.rawValue.uppercased()) image \(name) is cut short (incomplete download or copy?); get the whole file again."
        case .corrupt(let name, let format, let reason):
            return "The \(format.rawValue.uppercased()) image \(name) is damaged (\(reason)); re-export or re-download it."
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        let value = Double(bytes) / 1_000_000
        return value >= 10 ? "\(Int(value.rounded())) MB" : String(format: "%.1f MB", value)
    }
}

extension ImageAttachment {
    /// The largest image accepted: 20 MB, the vision APIs' own limit.
    public static let maximumBytes = 20_000_000

    /// Checks that `data` is a whole PNG, JPEG or WebP image no larger than `limit`, and makes
    /// an attachment with the media type its bytes show. `name` names it in errors.
    ///
    /// The checks are structural (PNG chunks and their CRCs up to `IEND`, JPEG markers up to
    /// end-of-image, the WebP RIFF length), so a cut or damaged file is refused here with a
    /// reason instead of failing later inside a model or a server.
    public static func validated(_ data: Data, name: String, limit: Int = maximumBytes) throws(ImageError) -> ImageAttachment {
        guard !data.isEmpty else { throw .empty(name: name) }
        guard data.count <= limit else { throw .tooLarge(name: name, bytes: data.count, limit: limit) }
        guard let format = ImageFormat.sniff(data) else { throw .unsupportedFormat(name: name) }
        let bytes = [UInt8](data)
        switch format {
        case .png: try checkPNG(bytes, name: name)
        case .jpeg: try checkJPEG(bytes, name: name)
        case .webp: try checkWebP(bytes, name: name)
        }
        return ImageAttachment(data: data, mimeType: format.mimeType)
    }

    /// Reads and checks the image file at `path` (see ``validated(_:name:limit:)``); a file
    /// over the limit is refused before it is read.
    public static func read(path: String, limit: Int = maximumBytes) throws(ImageError) -> ImageAttachment {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { throw .notFound(path: path) }
        let size = (try? manager.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else { throw .tooLarge(name: path, bytes: size, limit: limit) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        return try validated(data, name: path, limit: limit)
    }

    // MARK: - Structure

    private static func checkPNG(_ bytes: [UInt8], name: String) throws(ImageError) {
        var offset = ImageFormat.pngSignature.count
        var first = true
        while true {
            guard offset + 12 <= bytes.count else { throw .truncated(name: name, format: .png) }
            let length = Int(bigEndian32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count else { throw .truncated(name: name, format: .png) }
            let end = offset + 8 + length
            guard end + 4 <= bytes.count else { throw .truncated(name: name, format: .png) }
            if first, type != "IHDR" { throw .corrupt(name: name, format: .png, reason: "it does not start with a header chunk") }
            first = false
            let stored = bigEndian32(bytes, end)
            guard CRC32.checksum(bytes[(offset + 4)..<end]) == stored else {
                throw .corrupt(name: name, format: .png, reason: "the \(type) chunk fails its checksum")
            }
            if type == "IEND" { return }
            offset = end + 4
        }
    }

    private static func checkJPEG(_ bytes: [UInt8], name: String) throws(ImageError) {
        // Markers with a length run up to start-of-scan; the entropy-coded data after it
        // ends with the end-of-image marker (trailing padding aside).
        var offset = 2
        var sawScan = false
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { throw .corrupt(name: name, format: .jpeg, reason: "a marker is missing where one should be") }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD9 { return }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { offset += 2; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { throw .corrupt(name: name, format: .jpeg, reason: "a segment has an impossible length") }
            offset += 2 + length
            if marker == 0xDA { sawScan = true; break }
        }
        guard sawScan, offset <= bytes.count else { throw .truncated(name: name, format: .jpeg) }
        var end = bytes.count
        while end > offset, bytes[end - 1] == 0 { end -= 1 }
        guard end >= 2, bytes[end - 2] == 0xFF, bytes[end - 1] == 0xD9 else { throw .truncated(name: name, format: .jpeg) }
    }

    private static func checkWebP(_ bytes: [UInt8], name: String) throws(ImageError) {
        let declared = Int(littleEndian32(bytes, 4)) + 8
        guard declared <= bytes.count else { throw .truncated(name: name, format: .webp) }
        guard bytes.count >= 20 else { throw .truncated(name: name, format: .webp) }
        let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
        guard ["VP8 ", "VP8L", "VP8X"].contains(chunk) else {
            throw .corrupt(name: name, format: .webp, reason: "its first chunk is \(chunk.debugDescription), not image data")
        }
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    private static func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reversed().reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

/// CRC-32 (ISO 3309, as PNG uses it).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
