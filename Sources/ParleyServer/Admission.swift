import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import ParleyCore
import ParleyData

/// The one way into the server: every request — the router's, the relay's on the event loop,
/// the WebSocket upgrade, and each realtime reply — is admitted here, by the same rules:
///
/// 1. where it comes from (``BrowserPolicy``: `Origin`, `Host`, form posts);
/// 2. the key (`Authorization: Bearer KEY`, or on a WebSocket the subprotocol
///    `openai-insecure-api-key.KEY`), compared in constant time and never logged, which names
///    the request's owner and role (``Role``);
/// 3. the key's request and token limits (``RateLimits``), charged with the tokens each reply
///    reports afterwards (``charge(_:usage:)``);
/// 4. an id (`x-request-id`: the client's own when sane, else a new `req_…`) and one
///    access-log line when it is answered (``log(_:method:path:status:since:)``).
final class Admission: Sendable {
    /// What a key may do.
    enum Role: Sendable, Equatable {
        /// Its own conversations, and the server's models and voices.
        case user
        /// Also the server-wide settings (the on-device model switch): `PARLEY_ADMIN_KEYS`,
        /// or everyone when the server has no keys (one person's loopback server).
        case admin
    }

    /// A request admitted: whose it is and what to send back with it.
    struct Admitted: Sendable {
        var owner: Owner
        /// The position of the key among the server's (`nil` without keys, or on open paths).
        var keyIndex: Int?
        var role: Role
        var requestID: String
        /// OpenAI's `x-ratelimit-*` headers for the key's buckets.
        var limitHeaders: [(String, String)]
    }

    /// A request refused: the error to answer with, and headers beside it.
    struct Refused: Error, Sendable {
        var error: OpenAIError
        var requestID: String
        var limitHeaders: [(String, String)]
    }

    /// The headers admission reads, from either kind of request head.
    struct Head {
        var method: String
        var path: String
        var authorization: String?
        var origin: String?
        var host: String?
        var fetchSite: String?
        var contentType: String?
        var requestID: String?
        var webSocketProtocols: [String] = []
        /// Whether the request asks for a WebSocket (`Upgrade: websocket`).
        var upgradesToWebSocket = false
    }

    let browser: BrowserPolicy
    let limits: RateLimits
    private let keys: [[UInt8]]
    private let owners: [Owner]
    private let admins: Set<Int>
    /// Paths open without a key (the page's files, `/health`).
    let openPaths: Set<String>
    /// Paths no limit counts (open paths, `/metrics`).
    let unlimitedPaths: Set<String>
    let logger: Logger

    /// - Parameters:
    ///   - keys: the server's keys; empty lets everyone in as ``Role/admin`` (loopback only).
    ///   - adminKeys: the keys that may change server-wide settings (they are keys too).
    init(keys: [String], adminKeys: [String], browser: BrowserPolicy, limits: RateLimits, openPaths: Set<String>, logger: Logger) {
        var all = keys
        for key in adminKeys where !all.contains(key) { all.append(key) }
        self.keys = all.map { Array($0.utf8) }
        owners = all.map(Owner.apiKey)
        admins = Set(all.indices.filter { adminKeys.contains(all[$0]) })
        self.browser = browser
        self.limits = limits
        self.openPaths = openPaths
        unlimitedPaths = openPaths.union(["/metrics"])
        self.logger = logger
    }

    /// Whether the server asks for keys.
    var requiresKeys: Bool { !keys.isEmpty }

    /// Admits `head`, taking one request from its key's limit (unless `counting` is false: the
    /// caller takes it later with ``take(_:)``).
    func admit(_ head: Head, counting: Bool = true) -> Result<Admitted, Refused> {
        let id = RequestID.sane(head.requestID) ?? RequestID.newID()
        let origin = BrowserPolicy.Request(
            method: head.method, origin: head.origin, host: head.host, fetchSite: head.fetchSite,
            contentType: head.contentType)
        if let refusal = browser.refusal(of: origin) {
            let status: HTTPResponse.Status = refusal.code == "unsupported_media_type" ? .unsupportedMediaType : .forbidden
            return .failure(
                Refused(
                    error: OpenAIError(status: status, message: refusal.message, type: "invalid_request_error", code: refusal.code),
                    requestID: id, limitHeaders: []))
        }
        var admitted = Admitted(owner: .local, keyIndex: nil, role: keys.isEmpty ? .admin : .user, requestID: id, limitHeaders: [])
        let open = openPaths.contains(head.path)
        if !keys.isEmpty {
            // A key offered as a subprotocol counts on a WebSocket upgrade only (a browser
            // cannot set headers there); HTTP requests carry `Authorization`.
            let offered = head.upgradesToWebSocket ? BearerKey.protocolKey(head.webSocketProtocols) : nil
            // An open path needs no key, but one that is given counts (`/health`'s detail).
            let presented = BearerKey.bearerToken(head.authorization) ?? offered
            let matched = presented.flatMap { BearerKey.index(of: $0, among: keys) }
            guard let matched else {
                if open { return .success(admitted) }
                return .failure(Refused(error: .unauthorized(keyGiven: presented != nil), requestID: id, limitHeaders: []))
            }
            admitted.keyIndex = matched
            admitted.owner = owners[matched]
            admitted.role = admins.contains(matched) ? .admin : .user
        }
        if counting, limits.isOn, !unlimitedPaths.contains(head.path) {
            switch take(admitted.owner) {
            case .success(let headers): admitted.limitHeaders = headers
            case .failure(var refused):
                refused.requestID = id
                return .failure(refused)
            }
        }
        return .success(admitted)
    }

    /// Takes one request from `owner`'s limit: the headers to send, or the 429 to answer with.
    func take(_ owner: Owner) -> Result<[(String, String)], Refused> {
        let decision = limits.admit(owner)
        guard decision.allowed else {
            let seconds = RateLimits.wholeSeconds(decision.retryAfter)
            var failure = OpenAIError(
                status: .tooManyRequests, message: "Rate limit reached for this key: try again in \(seconds) s.",
                type: "rate_limit_error", code: "rate_limit_exceeded")
            failure.retryAfter = max(1, seconds)
            return .failure(Refused(error: failure, requestID: "", limitHeaders: decision.headers))
        }
        return .success(decision.headers)
    }

    /// Gives back a request taken by ``take(_:)`` that another way will take again.
    func refund(_ owner: Owner) {
        limits.refund(owner)
    }

    /// Takes the tokens a reply of `owner`'s used, as its provider reported them.
    func charge(_ owner: Owner, usage: Usage) {
        limits.charge(owner, tokens: RateLimits.tokens(of: usage))
    }

    /// The access-log line of an answered request: its id, method, path, status and time to
    /// the response's head. Never a header's value other than the id, so never a key.
    func log(_ id: String, method: String, path: String, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(id) \(method) \(path) → \(status) in \(Int(milliseconds.rounded())) ms")
    }
}

extension Admission.Head {
    /// The head of a request the router answers.
    init(_ request: HTTPRequest) {
        let fields = request.headerFields
        self.init(
            method: request.method.rawValue, path: Self.path(request.path ?? "/"), authorization: fields[.authorization],
            origin: fields[.origin], host: request.authority, fetchSite: fields[Self.fetchSite],
            contentType: fields[.contentType], requestID: fields[RequestID.header],
            webSocketProtocols: fields[values: .secWebSocketProtocol],
            upgradesToWebSocket: fields[values: .upgrade].contains { $0.lowercased().contains("websocket") })
    }

    /// The head of a request the relay on the event loop reads (HTTP/1's own types).
    init(_ head: HTTPRequestHead) {
        var this = Admission.Head(method: head.method.rawValue, path: Self.path(head.uri))
        for (name, value) in head.headers {
            switch name.lowercased() {
            case "authorization": this.authorization = value
            case "origin": this.origin = value
            case "host": this.host = value
            case "sec-fetch-site": this.fetchSite = value
            case "content-type": this.contentType = value
            case "x-request-id": this.requestID = value
            case "sec-websocket-protocol": this.webSocketProtocols.append(value)
            case "upgrade": this.upgradesToWebSocket = this.upgradesToWebSocket || value.lowercased().contains("websocket")
            default: break
            }
        }
        self = this
    }

    static let fetchSite = HTTPField.Name("sec-fetch-site")!

    /// A request target's path, without its query.
    static func path(_ target: String) -> String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }
}

/// ``Admission`` for the router's requests (and the WebSocket upgrade): a refused request is
/// answered here; an admitted one goes on with its owner, key and role in the context, and its
/// answer gets its id, the limit headers and one access-log line.
struct AdmissionMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let admission: Admission
    /// Whether this is the WebSocket routes' (every request an upgrade; HTTP/1's `Upgrade`
    /// header does not reach the router).
    var webSocket = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var head = Admission.Head(request.head)
        head.upgradesToWebSocket = head.upgradesToWebSocket || webSocket
        var response: Response
        let id: String
        switch admission.admit(head) {
        case .failure(let refused):
            id = refused.requestID
            response = try refused.error.response(from: request, context: context)
            response.headers.append(refused.limitHeaders)
        case .success(let admitted):
            id = admitted.requestID
            var context = context
            context.keyIndex = admitted.keyIndex
            context.owner = admitted.owner
            context.role = admitted.role
            response = try await next(request, context)
            response.headers.append(admitted.limitHeaders)
        }
        response.headers[RequestID.header] = id
        admission.log(id, method: head.method, path: head.path, status: response.status.code, since: start)
        return response
    }
}

extension HTTPFields {
    /// Sets each of `fields` (names that are not valid are left out).
    mutating func append(_ fields: [(String, String)]) {
        for (name, value) in fields { if let field = HTTPField.Name(name) { self[field] = value } }
    }
}
