import Crypto
import Foundation
import Synchronization

/// A Hugging Face hub on 127.0.0.1 for tests, speaking the hub's documented layout:
/// - `HEAD`/`GET /{owner}/{repo}/resolve/{revision}/{file}`: an LFS file answers `302` to the
///   CDN with `X-Repo-Commit`, `X-Linked-Etag` (the quoted SHA-256) and `X-Linked-Size`; a file
///   kept in git (`.md`, `.json`) answers `200` with a 40-digit `ETag`; a gated repository
///   answers `401` unless `Authorization: Bearer TOKEN` carries ``token``; a missing one `404`.
/// - `GET /api/models/{owner}/{repo}/tree/{revision}`: the listing (`path`, `type`, `size`,
///   `lfs.oid`, `lfs.size`).
/// - on a second server (another origin, as a CDN is): `GET /cdn/{sha256}`, the bytes, with
///   `Range: bytes=N-` answered by `206`, and faults; `GET /mirror/{name}`, a plain mirror folder.
public final class HubServer: Sendable {
    /// What goes wrong on the CDN.
    public struct Faults: Sendable {
        /// Cut the first GET of the CDN after this many body bytes.
        public var cutAfter: Int?
        /// Serve other bytes than the file's (a wrong checksum).
        public var corrupt = false

        /// No faults.
        public init(cutAfter: Int? = nil, corrupt: Bool = false) {
            self.cutAfter = cutAfter
            self.corrupt = corrupt
        }
    }

    struct Repository {
        var files: [String: Data]
        var gated: Bool
        var commit: String
    }

    final class State: Sendable {
        let repositories = Mutex<[String: Repository]>([:])
        let mirror = Mutex<[String: Data]>([:])
        let faults = Mutex(Faults())
        let cdnGets = Mutex(0)
        let baseURL = Mutex("")
        let token: String

        init(token: String) { self.token = token }
    }

    /// The token a gated repository accepts.
    public let token: String
    private let state: State
    /// The hub's server.
    public let server: WireServer
    /// The CDN's server (the redirects' target, and the mirror folder).
    public let cdn: WireServer

    /// `http://127.0.0.1:PORT`, the endpoint to give as `HF_ENDPOINT`.
    public var baseURL: String { server.baseURL }

    /// The mirror folder's URL, for `PARLEY_MODEL_MIRROR`.
    public var mirrorURL: String { cdn.baseURL + "/mirror" }

    private init(server: WireServer, cdn: WireServer, state: State) {
        self.server = server
        self.cdn = cdn
        self.state = state
        self.token = state.token
    }

    /// Starts a hub and its CDN; gated repositories accept `token`.
    public static func start(token: String = "hf_test_token_not_a_secret") async throws -> HubServer {
        let state = State(token: token)
        let cdn = try await WireServer.start { request in HubServer.answer(request, state) }
        state.baseURL.withLock { $0 = cdn.baseURL }
        let server = try await WireServer.start { request in HubServer.answer(request, state) }
        return HubServer(server: server, cdn: cdn, state: state)
    }

    /// Publishes a repository (`OWNER/NAME`) holding `files` by path.
    public func add(repository: String, files: [String: Data], gated: Bool = false) {
        let commit = Self.hex(SHA256.hash(data: Data(repository.utf8))).prefix(40)
        state.repositories.withLock { $0[repository] = Repository(files: files, gated: gated, commit: String(commit)) }
    }

    /// Puts a file in the mirror folder (`/mirror/NAME`).
    public func addMirror(_ name: String, _ data: Data) { state.mirror.withLock { $0[name] = data } }

    /// The commit every revision of `repository` resolves to.
    public func commit(of repository: String) -> String? { state.repositories.withLock { $0[repository]?.commit } }

    /// Changes the faults.
    public func setFaults(_ faults: Faults) { state.faults.withLock { $0 = faults } }

    /// Every request so far, the hub's then the CDN's.
    public var requests: [WireServer.Recorded] { get async { await server.requests + cdn.requests } }

    /// Stops both servers.
    public func stop() {
        server.stop()
        cdn.stop()
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func isLFS(_ path: String) -> Bool {
        !(path.hasSuffix(".md") || path.hasSuffix(".json") || path.hasSuffix(".gitattributes"))
    }

    private static func answer(_ request: WireServer.Recorded, _ state: State) -> WireServer.Reply {
        let parts = request.path.split(separator: "/").map(String.init)
        if parts.first == "cdn", parts.count == 2 { return cdn(parts[1], request, state) }
        if parts.first == "mirror", parts.count == 2 {
            guard let data = state.mirror.withLock({ $0[parts[1]] }) else { return notFound("EntryNotFound") }
            return bytes(data, request, cut: nil)
        }
        if parts.count >= 6, parts[0] == "api", parts[1] == "models", parts[4] == "tree" {
            return tree(repository: "\(parts[2])/\(parts[3])", request, state)
        }
        if parts.count >= 5, parts[2] == "resolve" {
            return resolve(repository: "\(parts[0])/\(parts[1])", file: parts[4...].joined(separator: "/"), request, state)
        }
        return notFound("RepoNotFound")
    }

    private static func notFound(_ code: String) -> WireServer.Reply {
        .json(404, #"{"error": "not found"}"#, headers: ["x-error-code": code])
    }

    /// The repository, or the reply refusing it.
    private static func repository(_ name: String, _ request: WireServer.Recorded, _ state: State) -> Result<Repository, Refusal> {
        guard let repository = state.repositories.withLock({ $0[name] }) else { return .failure(Refusal(reply: notFound("RepoNotFound"))) }
        if repository.gated, request.headers["authorization"] != "Bearer \(state.token)" {
            return .failure(
                Refusal(
                    reply: .json(
                        401, #"{"error": "Access to model \#(name) is restricted. You must have access to it and be authenticated to access it."}"#,
                        headers: ["x-error-code": "GatedRepo"])))
        }
        return .success(repository)
    }

    struct Refusal: Error { var reply: WireServer.Reply }

    private static func resolve(repository name: String, file: String, _ request: WireServer.Recorded, _ state: State) -> WireServer.Reply {
        let repository: Repository
        switch Self.repository(name, request, state) {
        case .success(let found): repository = found
        case .failure(let refusal): return refusal.reply
        }
        guard let data = repository.files[file] else { return notFound("EntryNotFound") }
        if isLFS(file) {
            let sha = hex(SHA256.hash(data: data))
            let base = state.baseURL.withLock { $0 }
            return .body(
                status: 302, contentType: "text/plain", Data(),
                headers: [
                    "location": "\(base)/cdn/\(sha)",
                    "x-repo-commit": repository.commit,
                    "x-linked-etag": "\"\(sha)\"",
                    "x-linked-size": "\(data.count)",
                    "etag": "\"\(String(hex(Insecure.SHA1.hash(data: data))))\"",
                ])
        }
        var reply = bytes(data, request, cut: nil)
        if case .body(let status, let type, let body, var headers) = reply {
            headers["x-repo-commit"] = repository.commit
            headers["etag"] = "\"\(hex(Insecure.SHA1.hash(data: data)))\""
            reply = .body(status: status, contentType: type, body, headers: headers)
        }
        return reply
    }

    private static func tree(repository name: String, _ request: WireServer.Recorded, _ state: State) -> WireServer.Reply {
        let repository: Repository
        switch Self.repository(name, request, state) {
        case .success(let found): repository = found
        case .failure(let refusal): return refusal.reply
        }
        let entries = repository.files.keys.sorted().map { path -> String in
            let data = repository.files[path] ?? Data()
            let oid = hex(Insecure.SHA1.hash(data: data))
            guard isLFS(path) else { return #"{"type": "file", "oid": "\#(oid)", "size": \#(data.count), "path": "\#(path)"}"# }
            let sha = hex(SHA256.hash(data: data))
            return
                #"{"type": "file", "oid": "\#(oid)", "size": \#(data.count), "lfs": {"oid": "\#(sha)", "size": \#(data.count), "pointerSize": 134}, "path": "\#(path)"}"#
        }
        return .json(200, "[" + entries.joined(separator: ", ") + "]")
    }

    private static func cdn(_ sha: String, _ request: WireServer.Recorded, _ state: State) -> WireServer.Reply {
        let found = state.repositories.withLock { repositories in
            repositories.values.lazy.flatMap(\.files.values).first { hex(SHA256.hash(data: $0)) == sha }
        }
        guard var data = found else { return .body(status: 404, contentType: "text/plain", Data("no such object".utf8)) }
        let faults = state.faults.withLock { $0 }
        if faults.corrupt { data = Data(data.map { $0 ^ 0x5A }) }
        var cut: Int?
        if request.method == "GET" {
            let number = state.cdnGets.withLock { count in
                count += 1
                return count
            }
            if number == 1 { cut = faults.cutAfter }
        }
        return bytes(data, request, cut: cut)
    }

    /// The bytes of a file as a CDN sends them: `HEAD` with the length, `Range: bytes=N-` as
    /// `206`, optionally cut after `cut` bytes.
    private static func bytes(_ data: Data, _ request: WireServer.Recorded, cut: Int?) -> WireServer.Reply {
        if request.method == "HEAD" {
            return .body(
                status: 200, contentType: "application/octet-stream", Data(),
                headers: ["content-length": "\(data.count)", "accept-ranges": "bytes"])
        }
        var start = 0
        if let range = request.headers["range"], range.hasPrefix("bytes="),
            let first = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? "")
        {
            guard first < data.count else {
                return .body(status: 416, contentType: "text/plain", Data(), headers: ["content-range": "bytes */\(data.count)"])
            }
            start = first
        }
        var body = data.subdata(in: start..<data.count)
        var ending = WireServer.Ending.complete
        if let cut, cut < body.count {
            body = body.prefix(cut)
            ending = .cut
        }
        var chunks: [Data] = []
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + 64 * 1024)
            chunks.append(body.subdata(in: (body.startIndex + offset)..<(body.startIndex + end)))
            offset = end
        }
        var headers = ["content-length": "\(data.count - start)", "accept-ranges": "bytes"]
        if start > 0 { headers["content-range"] = "bytes \(start)-\(data.count - 1)/\(data.count)" }
        return .stream(status: start > 0 ? 206 : 200, contentType: "application/octet-stream", chunks: chunks, ending: ending, headers: headers)
    }
}
