import Crypto
import Foundation
import ParleyModels
import ParleyTestServers
import Synchronization
import ZIPFoundation

/// A file server on 127.0.0.1 speaking plain HTTP/1.1 as a CDN does (HEAD, `Range: bytes=N-`
/// answered with 206 and `Content-Range`), with faults a test can switch on, and a package index
/// speaking PyPI's JSON simple API (PEP 691) for the wheels it holds.
final class FileServer: Sendable {
    /// What goes wrong.
    struct Faults: Sendable {
        /// Cut the connection after this many body bytes, for the first `cuts` GETs.
        var cutAfter: Int?
        var cuts = 1
        /// Answer `Range` requests with the whole file (200), as a server without resume does.
        var ignoreRange = false
        /// Send nothing more after this many bytes (the client must time out).
        var stallAfter: Int?
        /// Body chunk size (small chunks make a slow server).
        var chunk = 64 * 1024
        /// Serve these bytes for every file instead of the real ones (a wrong checksum).
        var corrupt = false
    }

    /// What the server holds, shared with its handler.
    final class Contents: Sendable {
        let files: Mutex<[String: Data]>
        let faults: Mutex<Faults>
        let gets = Mutex(0)

        init(files: [String: Data], faults: Faults) {
            self.files = Mutex(files)
            self.faults = Mutex(faults)
        }
    }

    let server: WireServer
    private let contents: Contents

    var baseURL: String { server.baseURL }

    private init(server: WireServer, contents: Contents) {
        self.server = server
        self.contents = contents
    }

    static func start(files: [String: Data] = [:], faults: Faults = Faults()) async throws -> FileServer {
        let contents = Contents(files: files, faults: faults)
        let server = try await WireServer.start { request in FileServer.answer(request, contents) }
        return FileServer(server: server, contents: contents)
    }

    func url(_ path: String) -> URL { URL(string: "\(baseURL)/\(path)")! }

    func add(_ path: String, _ data: Data) { contents.files.withLock { $0[path] = data } }

    func setFaults(_ change: (inout Faults) -> Void) { contents.faults.withLock { change(&$0) } }

    /// The `Range` header of every GET of `path`, in order (`nil` for a GET without one).
    func ranges(of path: String) async -> [String?] {
        await server.requests.filter { $0.method == "GET" && $0.path == "/" + path }.map { $0.headers["range"] }
    }

    func stop() { server.stop() }

    private static func answer(_ request: WireServer.Recorded, _ contents: Contents) -> WireServer.Reply {
        let path = String(request.path.dropFirst())
        if path.hasPrefix("simple/") {
            return indexPage(for: String(path.dropFirst("simple/".count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")), contents)
        }
        guard var data = contents.files.withLock({ $0[path] }) else {
            return .body(status: 404, contentType: "text/plain", Data("not found".utf8))
        }
        let fault = contents.faults.withLock { $0 }
        if fault.corrupt { data = Data(data.map { $0 ^ 0x5A }) }
        if request.method == "HEAD" {
            var headers = ["content-length": "\(data.count)"]
            if !fault.ignoreRange { headers["accept-ranges"] = "bytes" }
            return .body(status: 200, contentType: "application/octet-stream", Data(), headers: headers)
        }
        var start = 0
        if !fault.ignoreRange, let range = request.headers["range"], range.hasPrefix("bytes="),
            let first = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? "")
        {
            guard first < data.count else {
                return .body(status: 416, contentType: "text/plain", Data(), headers: ["content-range": "bytes */\(data.count)"])
            }
            start = first
        }
        let number = contents.gets.withLock { count in
            count += 1
            return count
        }
        var body = data.subdata(in: start..<data.count)
        var ending = WireServer.Ending.complete
        if let cut = fault.cutAfter, number <= fault.cuts, cut < body.count {
            body = body.prefix(cut)
            ending = .cut
        } else if let stall = fault.stallAfter, stall < body.count {
            body = body.prefix(stall)
            ending = .stall(keepAlive: nil)
        }
        var chunks: [Data] = []
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + fault.chunk)
            chunks.append(body.subdata(in: (body.startIndex + offset)..<(body.startIndex + end)))
            offset = end
        }
        var headers = ["content-length": "\(data.count - start)"]
        if start > 0 { headers["content-range"] = "bytes \(start)-\(data.count - 1)/\(data.count)" }
        return .stream(status: start > 0 ? 206 : 200, contentType: "application/octet-stream", chunks: chunks, ending: ending, headers: headers)
    }

    /// The JSON simple API page of one project: every file under `packages/` whose name starts
    /// with the project's wheel prefix.
    private static func indexPage(for project: String, _ contents: Contents) -> WireServer.Reply {
        let prefix = "packages/" + project.replacingOccurrences(of: "-", with: "_") + "-"
        let matches = contents.files.withLock { $0.filter { $0.key.hasPrefix(prefix) } }
        guard !matches.isEmpty else { return .json(404, #"{"message": "Not Found"}"#) }
        let entries = matches.keys.sorted().map { path in
            let sha = SHA256.hash(data: matches[path]!).map { String(format: "%02x", $0) }.joined()
            return
                #"{"filename": "\#(path.dropFirst("packages/".count))", "url": "/\#(path)", "hashes": {"sha256": "\#(sha)"}, "size": \#(matches[path]!.count)}"#
        }
        let body = #"{"meta": {"api-version": "1.1"}, "name": "\#(project)", "files": [\#(entries.joined(separator: ", "))]}"#
        return .body(status: 200, contentType: "application/vnd.pypi.simple.v1+json", Data(body.utf8))
    }
}

/// Test data.
enum Bytes {
    /// `count` bytes of a repeatable pattern that no two offsets share for long.
    static func pattern(_ count: Int, seed: UInt64 = 1) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        var data = Data(capacity: count)
        for _ in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            data.append(UInt8(truncatingIfNeeded: state))
        }
        return data
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// A wheel (zip) holding `members`, deflated as the packaging tools write them.
    static func wheel(_ members: [String: Data]) throws -> Data {
        let archive = try Archive(accessMode: .create)
        for (path, data) in members.sorted(by: { $0.key < $1.key }) {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let bytes = archive.data else { throw CocoaError(.fileWriteUnknown) }
        return bytes
    }
}

/// A fresh folder under the temporary directory.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-models-\(UUID())", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
