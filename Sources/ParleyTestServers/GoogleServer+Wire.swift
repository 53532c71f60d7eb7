import Foundation

/// What the Google server answers, before it becomes a Hummingbird response.
struct GoogleReply: Sendable {
    var status: Int
    var contentType: String
    var body: Data
    var headers: [String: String] = [:]
}

/// A query string or form body, with repeated names kept (Gmail's `labelIds`).
struct GoogleParameters: Sendable {
    private(set) var pairs: [(String, String)] = []

    /// Parses `name=value&…` (`+` is a space, percent escapes decoded).
    init(_ text: String) {
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            pairs.append((name, value))
        }
    }

    /// The first value of `name`.
    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// The first value of `name` when it is a non-empty string.
    func nonEmpty(_ name: String) -> String? { self[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// A whole number; `nil` when absent, `.failure` when not a number.
    func integer(_ name: String) -> Result<Int?, GoogleRejection> {
        guard let text = nonEmpty(name) else { return .success(nil) }
        guard let value = Int(text) else {
            return .failure(
                GoogleRejection(GoogleWire.invalidParameter(name, "Invalid value '\(text)'. Values must match the following regular expression: '[0-9]+'")))
        }
        return .success(value)
    }

    /// `true`/`false`; `nil` when absent.
    func flag(_ name: String) -> Bool? {
        guard let text = nonEmpty(name)?.lowercased() else { return nil }
        return text == "true" || text == "1"
    }

    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// An answer that ends handling early (an error reply), usable with `throw`.
struct GoogleRejection: Error, Sendable {
    var reply: GoogleReply
    init(_ reply: GoogleReply) { self.reply = reply }
}

/// Google's wire conventions shared by the endpoints: JSON bodies, the API error shape, the
/// OAuth error shape, RFC 3339 times, base64url and opaque page tokens.
enum GoogleWire {
    static let jsonType = "application/json; charset=UTF-8"

    /// A JSON object or array as the body.
    static func json(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> GoogleReply {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return GoogleReply(status: status, contentType: jsonType, body: data, headers: headers)
    }

    /// The error shape of Google's REST APIs:
    /// `{"error":{"code","message","errors":[{"domain","reason","message",…}],"status"}}`.
    static func apiError(
        _ status: Int, reason: String, message: String, domain: String? = nil,
        location: (type: String, name: String)? = nil, headers: [String: String] = [:]
    ) -> GoogleReply {
        var detail: [String: Any] = ["domain": domain ?? defaultDomain(reason), "reason": reason, "message": message]
        if let location {
            detail["locationType"] = location.type
            detail["location"] = location.name
        }
        let error: [String: Any] = ["code": status, "message": message, "errors": [detail], "status": statusName(status)]
        return json(status, ["error": error], headers: headers)
    }

    /// 400 for a query parameter Google would not accept.
    static func invalidParameter(_ name: String, _ message: String) -> GoogleReply {
        apiError(400, reason: "invalid", message: message, location: ("parameter", name))
    }

    /// 400 for a missing required query parameter.
    static func missingParameter(_ name: String) -> GoogleReply {
        apiError(400, reason: "required", message: "Required parameter: \(name)", location: ("parameter", name))
    }

    /// The OAuth endpoints' error shape: `{"error","error_description"}`.
    static func oauthError(_ status: Int, _ error: String, _ description: String) -> GoogleReply {
        json(status, ["error": error, "error_description": description], headers: ["Cache-Control": "no-store"])
    }

    /// A reason's usual domain.
    static func defaultDomain(_ reason: String) -> String {
        ["rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"].contains(reason) ? "usageLimits" : "global"
    }

    /// The canonical status name Google puts next to an HTTP status.
    static func statusName(_ code: Int) -> String {
        switch code {
        case 400: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 409: return "ABORTED"
        case 410: return "FAILED_PRECONDITION"
        case 412: return "FAILED_PRECONDITION"
        case 429: return "RESOURCE_EXHAUSTED"
        case 499: return "CANCELLED"
        case 501: return "UNIMPLEMENTED"
        case 503: return "UNAVAILABLE"
        case 504: return "DEADLINE_EXCEEDED"
        case 500...599: return "INTERNAL"
        default: return "UNKNOWN"
        }
    }

    /// The text Google uses for a reason, when a test gives none.
    static func message(for reason: String) -> String {
        switch reason {
        case "rateLimitExceeded": return "Rate Limit Exceeded"
        case "userRateLimitExceeded": return "User Rate Limit Exceeded"
        case "dailyLimitExceeded": return "Daily Limit Exceeded"
        case "quotaExceeded": return "Quota Exceeded"
        case "backendError": return "Backend Error"
        case "internalError": return "Internal Error"
        case "notFound": return "Requested entity was not found."
        case "forbidden": return "Forbidden"
        case "authError": return "Invalid Credentials"
        default: return reason
        }
    }

    // MARK: Times

    /// `2024-05-01T10:00:00.000Z`, as Drive and Calendar write times.
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// An RFC 3339 time (offset or `Z`, fractional seconds or not), or a `YYYY-MM-DD` date
    /// (midnight UTC).
    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// An RFC 2822 `Date` header (`Tue, 7 May 2024 09:30:00 +0200`, weekday and comment optional).
    static func parseMailDate(_ text: String) -> Date? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if let comment = trimmed.range(of: " (") { trimmed = String(trimmed[..<comment.lowerBound]) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["EEE, d MMM yyyy HH:mm:ss Z", "d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm Z", "EEE, d MMM yyyy HH:mm:ss zzz"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// `date` as an RFC 2822 `Date` header in UTC.
    static func mailDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, d MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    // MARK: Encodings

    /// Base64url (RFC 4648 §5), without padding unless asked.
    static func base64URL(_ data: Data, padded: Bool = false) -> String {
        var text = data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        if !padded { while text.hasSuffix("=") { text.removeLast() } }
        return text
    }

    /// Decodes base64url with or without padding.
    static func decodeBase64URL(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// An opaque page token carrying `fields`.
    static func pageToken(_ kind: String, _ fields: [String]) -> String {
        base64URL(Data(([kind] + fields).joined(separator: "\u{1F}").utf8))
    }

    /// The fields of a page token made by ``pageToken(_:_:)`` for `kind`, or a 400 reply.
    static func readPageToken(_ token: String, kind: String, count: Int) -> Result<[String], GoogleRejection> {
        if let data = decodeBase64URL(token), let text = String(data: data, encoding: .utf8) {
            let parts = text.components(separatedBy: "\u{1F}")
            if parts.count == count + 1, parts[0] == kind { return .success(Array(parts.dropFirst())) }
        }
        return .failure(GoogleRejection(invalidParameter("pageToken", "Invalid Value")))
    }

    /// The request path split into percent-decoded segments.
    static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { $0.removingPercentEncoding ?? String($0) }
    }

    /// HTML-escapes `text` the way Gmail escapes snippets.
    static func htmlEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
