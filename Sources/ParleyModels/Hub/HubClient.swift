import AsyncHTTPClient
import Foundation
import NIOCore

/// What the hub says about one file before it is fetched (a `HEAD` of its `resolve` URL).
public struct HubFileMetadata: Sendable, Equatable {
    /// The commit the revision resolved to (`X-Repo-Commit`).
    public var commit: String?
    /// The SHA-256 of an LFS file (`X-Linked-Etag`), lower-case hex; `nil` for a file kept in git.
    public var sha256: String?
    /// The file's size (`X-Linked-Size`, else `Content-Length`).
    public var size: Int64?
    /// Where the bytes are: the CDN the hub redirects to, or the `resolve` URL itself.
    public var location: URL
    /// Whether ``location`` is the hub itself, which needs the token; a CDN's signed URL must not
    /// get it.
    public var locationIsHub: Bool
}

/// One file in a hub repository's listing.
public struct HubTreeEntry: Sendable, Equatable, Decodable {
    /// The path in the repository.
    public var path: String
    /// `file` or `directory`.
    public var type: String
    /// The size in bytes (of the LFS object for an LFS file).
    public var size: Int64?
    /// The LFS object, for files kept in LFS: its `oid` is the SHA-256.
    public var lfs: LFS?

    /// An LFS object.
    public struct LFS: Sendable, Equatable, Decodable {
        /// The SHA-256 of the file's bytes.
        public var oid: String
        /// The file's size.
        public var size: Int64
    }
}

/// The Hugging Face hub (or a mirror of it) as the downloader uses it: a file's `resolve` URL,
/// its metadata and a repository's listing, with `HF_TOKEN` for gated repositories.
public struct HubClient: Sendable {
    /// The hub's root, `https://huggingface.co` unless `HF_ENDPOINT` says otherwise.
    public var endpoint: URL
    /// Whether the hub is not to be asked for catalog files (`HF_HUB_OFFLINE=1`): they come
    /// from their mirrors only. An `hf.co/…` pull, which names the hub itself, still asks it.
    public var offline = false
    /// The access token, sent only to ``endpoint`` (never to the CDN, never logged).
    var token: String?

    /// Hugging Face's own hub.
    public static let huggingFace = HubClient(endpoint: URL(string: "https://huggingface.co")!)

    /// Creates a client.
    public init(endpoint: URL, token: String? = nil) {
        self.endpoint = endpoint
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The hub in `environment`: `HF_ENDPOINT` (else Hugging Face) with `HF_TOKEN`.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> HubClient {
        var client = HubClient.huggingFace
        if let text = environment["HF_ENDPOINT"], !text.isEmpty, let url = URL(string: text) { client.endpoint = url }
        client.token = environment["HF_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        client.offline = ["1", "true", "yes", "on"].contains(environment["HF_HUB_OFFLINE"]?.lowercased() ?? "")
        return client
    }

    /// Whether a token is set.
    public var hasToken: Bool { token != nil }

    /// The headers that go to the hub itself.
    var hubHeaders: [String: String] {
        token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
    }

    /// `{endpoint}/{repository}/resolve/{revision}/{file}`.
    public func resolveURL(_ file: HubFile) -> URL {
        var url = endpoint
        for part in file.repository.split(separator: "/") { url.appendPathComponent(String(part)) }
        url.appendPathComponent("resolve")
        url.appendPathComponent(file.revision)
        for part in file.file.split(separator: "/") { url.appendPathComponent(String(part)) }
        return url
    }

    /// Asks the hub about `file` without following its redirect to the CDN.
    public func metadata(_ file: HubFile) async throws(DownloadError) -> HubFileMetadata {
        let url = resolveURL(file)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .HEAD
        for (name, value) in hubHeaders { request.headers.add(name: name, value: value) }
        let client = DownloadClients.client(connect: .seconds(15), read: .seconds(30), followRedirects: false)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(45))
        } catch {
            throw .unreachable(url: Downloader.redacted(url), reason: Downloader.reason(error))
        }
        let status = Int(response.status.code)
        try check(status, repository: file.repository, what: "\(file.file) at \(file.revision)")
        let headers = response.headers
        let etag = headers.first(name: "x-linked-etag").map(Self.normalizedETag)
        let size = (headers.first(name: "x-linked-size") ?? headers.first(name: "content-length")).flatMap { Int64($0) }
        var location = url
        var isHub = true
        if (300..<400).contains(status) {
            guard let text = headers.first(name: "location"), let target = URL(string: text, relativeTo: url)?.absoluteURL else {
                throw .unreachable(url: Downloader.redacted(url), reason: "the hub redirected without a Location")
            }
            location = target
            isHub = target.host == url.host && target.port == url.port
        }
        return HubFileMetadata(
            commit: headers.first(name: "x-repo-commit"), sha256: etag.flatMap(Self.sha256), size: size,
            location: location, locationIsHub: isHub)
    }

    /// The files of `repository` at `revision` (`{endpoint}/api/models/{repository}/tree/{revision}`).
    public func files(in repository: String, revision: String = "main") async throws(DownloadError) -> [HubTreeEntry] {
        var url = endpoint.appendingPathComponent("api").appendingPathComponent("models")
        for part in repository.split(separator: "/") { url.appendPathComponent(String(part)) }
        url = url.appendingPathComponent("tree").appendingPathComponent(revision)
        var request = HTTPClientRequest(url: url.absoluteString + "?recursive=true")
        for (name, value) in hubHeaders { request.headers.add(name: name, value: value) }
        let client = DownloadClients.client(connect: .seconds(15), read: .seconds(30))
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            try check(Int(response.status.code), repository: repository, what: "its files at \(revision)")
            body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .unreachable(url: Downloader.redacted(url), reason: Downloader.reason(error))
        }
        do {
            return try JSONDecoder().decode([HubTreeEntry].self, from: Data(body.readableBytesView))
        } catch {
            throw .notOnHub(repository: repository, reason: "the listing is not the hub's JSON (\(error))")
        }
    }

    private func check(_ status: Int, repository: String, what: String) throws(DownloadError) {
        switch status {
        case 200..<400: return
        case 401, 403: throw .unauthorized(repository: repository, hadToken: hasToken)
        case 404: throw .notOnHub(repository: repository, reason: "no \(what)")
        default: throw .httpStatus(url: endpoint.absoluteString + "/" + repository, status: status)
        }
    }

    /// An ETag without quotes or a weak marker.
    static func normalizedETag(_ text: String) -> String {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("W/") { value.removeFirst(2) }
        return value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// `text` when it is a SHA-256 (64 hex digits; a git blob's ETag is 40), lower-cased.
    static func sha256(_ text: String) -> String? {
        text.count == 64 && text.allSatisfy(\.isHexDigit) ? text.lowercased() : nil
    }
}
