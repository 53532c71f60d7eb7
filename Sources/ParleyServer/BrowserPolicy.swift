import Foundation

/// Which web pages may talk to the server, and by which names: the defence against a page the
/// user visits reading their conversations or sending them requests (cross-site requests,
/// WebSockets and DNS rebinding).
///
/// - **Origin.** A request a browser sends from a page carries `Origin`. It passes when it is
///   the server's own page (the same host and port the request names in `Host`), or listed in
///   `PARLEY_ALLOWED_ORIGINS` (comma-separated, `*` for any, as Ollama's `OLLAMA_ORIGINS`);
///   any other, `null` included, is refused. A request without `Origin` (the SDKs, curl) is
///   not a page's, and passes. `Sec-Fetch-Site: cross-site` without an allowed `Origin` is
///   refused the same way, for browsers that leave `Origin` out of a form post. (A `ws:` or
///   `wss:` origin is no page's: WebSocket libraries send it naming the server they dial, and
///   it passes when it names the server as `Host` must.)
/// - **Host.** `Host` must name the server by an address (an IP literal, which no rebinding
///   can produce), `localhost`, the address it listens on, or a name listed in
///   `PARLEY_ALLOWED_HOSTS` (or the host of an allowed origin); a page on an attacker's domain
///   that resolves to 127.0.0.1 sends its own name, and is refused.
/// - **Form posts.** A body sent as `text/plain` or a URL-encoded form (what an HTML form on
///   another site can send without CORS) is refused on every route that changes state.
struct BrowserPolicy: Sendable {
    /// Origins allowed beside the server's own (`scheme://host[:port]`, lowercased).
    let origins: Set<String>
    /// Whether every origin is allowed (`*`).
    let anyOrigin: Bool
    /// Host names allowed beside addresses and `localhost` (lowercased, no port).
    let hosts: Set<String>
    /// Whether every host name is allowed (`*`).
    let anyHost: Bool

    /// The policy for a server listening on `listening`, with the lists the settings give.
    init(listening: String, allowedOrigins: [String], allowedHosts: [String]) {
        let origins = allowedOrigins.map { Self.normalized(origin: $0) }
        anyOrigin = origins.contains("*")
        self.origins = Set(origins.filter { $0 != "*" })
        var hosts = Set(allowedHosts.map { $0.lowercased() })
        anyHost = hosts.remove("*") != nil
        hosts.insert(Self.hostName(listening.lowercased()))
        for origin in self.origins {
            if let url = URL(string: origin), let host = url.host { hosts.insert(host.lowercased()) }
        }
        self.hosts = hosts
    }

    /// What a request says of where it comes from.
    struct Request {
        var method: String
        var origin: String?
        var host: String?
        var fetchSite: String?
        var contentType: String?
    }

    /// Why a request is refused, said to the client with a 403 (or 415 for a form post).
    enum Refusal: Error, Equatable {
        case foreignOrigin(String)
        case foreignHost(String)
        case formPost(String)

        var message: String {
            switch self {
            case .foreignOrigin(let origin):
                "Requests from the web page at \(origin.prefix(100)) are not allowed: add its origin to PARLEY_ALLOWED_ORIGINS to let it in."
            case .foreignHost(let host):
                "This server does not answer to the name \(host.prefix(100)): add it to PARLEY_ALLOWED_HOSTS to let it in."
            case .formPost(let type):
                "A \(type.prefix(60)) body is not accepted here: send JSON (application/json) or multipart/form-data from your own code."
            }
        }

        var code: String {
            switch self {
            case .foreignOrigin: "origin_not_allowed"
            case .foreignHost: "host_not_allowed"
            case .formPost: "unsupported_media_type"
            }
        }
    }

    /// `nil` when `request` may go on; else why not.
    func refusal(of request: Request) -> Refusal? {
        if let host = request.host, !allows(host: host) { return .foreignHost(host) }
        if let origin = request.origin {
            if !allows(origin: origin, host: request.host) { return .foreignOrigin(origin) }
        } else if request.fetchSite?.lowercased() == "cross-site", !anyOrigin {
            return .foreignOrigin("another site")
        }
        if Self.changesState(request.method), let type = request.contentType, Self.isFormType(type) { return .formPost(type) }
        return nil
    }

    /// Whether `host` (a `Host` header: name or address, with or without a port) names this
    /// server.
    func allows(host: String) -> Bool {
        if anyHost { return true }
        // The common case at once: an IPv4 address, with or without a port.
        if Self.isIPv4Authority(host) { return true }
        let name = Self.hostName(host.lowercased())
        if name.isEmpty { return false }
        if name == "localhost" || name.hasSuffix(".localhost") || Self.isAddress(name) { return true }
        return hosts.contains(name)
    }

    /// Whether a page at `origin` may call the server that `host` names.
    func allows(origin: String, host: String?) -> Bool {
        if anyOrigin { return true }
        let origin = Self.normalized(origin: origin)
        if origins.contains(origin) { return true }
        // No page has a `ws:` or `wss:` origin: those are WebSocket libraries naming the server
        // they dial (Swift's WSClient does), let in when they name it by one of its names.
        for scheme in ["ws://", "wss://"] where origin.hasPrefix(scheme) {
            return allows(host: String(origin.dropFirst(scheme.count)))
        }
        // The server's own page: the origin names the host and port the request was sent to.
        guard let host, origin != "null" else { return false }
        let authority = host.lowercased()
        return origin == "http://\(authority)" || origin == "https://\(authority)"
    }

    /// The methods that change state.
    static func changesState(_ method: String) -> Bool {
        method != "GET" && method != "HEAD" && method != "OPTIONS"
    }

    /// The content types an HTML form on any site can send without asking (besides
    /// multipart, which the upload endpoints take from code; a page's multipart post carries
    /// `Origin` and is judged by it).
    static func isFormType(_ type: String) -> Bool {
        // The media type before any parameters, without spaces or tabs around it, in any case
        // (compared byte by byte: every state-changing request asks this).
        let bytes = type.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        var media = bytes[bytes.startIndex..<end]
        while let first = media.first, first == 0x20 || first == 0x09 { media = media.dropFirst() }
        while let last = media.last, last == 0x20 || last == 0x09 { media = media.dropLast() }
        return ASCII.equalsIgnoringCase(media, "text/plain") || ASCII.equalsIgnoringCase(media, "application/x-www-form-urlencoded")
    }

    /// The name or address of a `Host` value, without its port or an IPv6 literal's brackets.
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "" }
            return String(host[host.index(after: host.startIndex)..<close])
        }
        if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon { return String(host[..<colon]) }
        return host
    }

    /// Whether `host` is an IPv4 address with or without a port (`127.0.0.1:8080`), read byte
    /// by byte.
    static func isIPv4Authority(_ host: String) -> Bool {
        var dots = 0, digits = 0, value = 0, port = false, portDigits = 0
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if port {
                    portDigits += 1
                    guard portDigits <= 5 else { return false }
                } else {
                    digits += 1
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    guard digits <= 3, value <= 255 else { return false }
                }
            case UInt8(ascii: "."):
                guard !port, digits > 0, dots < 3 else { return false }
                dots += 1
                digits = 0
                value = 0
            case UInt8(ascii: ":"):
                guard !port, dots == 3, digits > 0 else { return false }
                port = true
            default:
                return false
            }
        }
        return dots == 3 && digits > 0 && (!port || portDigits > 0)
    }

    /// Whether `name` is an IPv4 or IPv6 literal.
    static func isAddress(_ name: String) -> Bool {
        if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }

    /// An origin as browsers send it: lowercased, no trailing slash.
    static func normalized(origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// Comparisons of ASCII text without allocating (header names, media types).
enum ASCII {
    /// Whether `bytes` spell `expected` (lowercase ASCII) in any case.
    static func equalsIgnoringCase<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ expected: StaticString) -> Bool {
        guard bytes.count == expected.utf8CodeUnitCount else { return false }
        return expected.withUTF8Buffer { wanted in
            zip(bytes, wanted).allSatisfy { byte, lower in (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == lower }
        }
    }

    /// Whether `text` spells `expected` (lowercase ASCII) in any case.
    static func equalsIgnoringCase(_ text: String, _ expected: StaticString) -> Bool {
        equalsIgnoringCase(text.utf8, expected)
    }
}
