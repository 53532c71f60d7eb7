import Crypto
import Foundation
import NIOCore

/// The browser client's files (HTML, CSS, JavaScript), read once from the package's resources
/// (the `WebClient` folder of this target, `Bundle.module`), each with its content type and a
/// content hash for its ETag. `index.html` is served at `/`, every file at its path in the
/// folder (`/app.js`, `/style.css`, …).
struct WebClientFiles: Sendable {
    /// One file, ready to send.
    struct File: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// A strong validator: the first 16 bytes of the content's SHA-256, quoted.
        var etag: String
    }

    /// The files by the URL path they are served at.
    let files: [String: File]

    /// The paths served (open without a key: the page asks for one itself).
    var paths: Set<String> { Set(files.keys) }

    /// The files shipped with the package; empty if the resources cannot be read.
    static let bundled: WebClientFiles = {
        guard let folder = Bundle.module.url(forResource: "WebClient", withExtension: nil) else { return WebClientFiles(files: [:]) }
        return (try? WebClientFiles(folder: folder)) ?? WebClientFiles(files: [:])
    }()

    init(files: [String: File]) {
        self.files = files
    }

    /// Reads every file under `folder`.
    init(folder: URL) throws {
        let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
        var files: [String: File] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(root + "/"), !url.lastPathComponent.hasPrefix(".") else { continue }
            let data = try Data(contentsOf: url)
            let file = File(
                body: ByteBuffer(bytes: data), contentType: Self.contentType(of: url.pathExtension),
                etag: "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\"")
            let served = String(path.dropFirst(root.count))
            files[served] = file
            if served == "/index.html" { files["/"] = file }
        }
        self.files = files
    }

    /// The content type of a file extension (text types in UTF-8).
    static func contentType(of pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
