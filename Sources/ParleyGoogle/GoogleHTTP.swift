import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCloud

/// A response, read whole.
struct GoogleResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    /// The body decoded as `T`; `service` names who sent it in the error.
    func decoded<T: Decodable>(_ type: T.Type, service: String) throws(GoogleError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw .malformed(name: service, reason: "\(error)")
        }
    }

    /// Google's error body: `{"error": {"code", "message", "errors": [{"reason"}], "status"}}`.
    var apiError: (reason: String?, message: String) {
        struct Body: Decodable {
            struct Detail: Decodable { var reason: String? }
            struct Inner: Decodable {
                var message: String?
                var status: String?
                var errors: [Detail]?
            }
            var error: Inner
        }
        guard let parsed = try? JSONDecoder().decode(Body.self, from: body) else {
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return (nil, text.isEmpty ? "no details" : text)
        }
        let reason = parsed.error.errors?.first?.reason ?? parsed.error.status
        let message = (parsed.error.message ?? "no details").trimmingCharacters(in: CharacterSet(charactersIn: ". \n"))
        return (reason, message)
    }
}

/// Sends requests to Google over AsyncHTTPClient. It never logs, and its errors never hold a
/// request's headers or body (where tokens travel).
struct GoogleHTTP: Sendable {
    /// The longest wait for a whole response.
    var timeout: Duration = .seconds(60)
    /// The largest body read.
    var limit = 100 * 1024 * 1024

    func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: Data? = nil,
        service: String
    ) async throws(GoogleError) -> GoogleResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            // ParleyCloud's clients: a refused connection fails at once, not at the deadline.
            let client = HTTPClients.client(for: HTTPTimeouts(connect: .seconds(10), firstByte: timeout, idle: timeout))
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            let buffer = try await response.body.collect(upTo: limit)
            return GoogleResponse(status: Int(response.status.code), headers: response.headers, body: Data(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw .tooLarge(name: service, limit: limit)
        } catch is CancellationError {
            throw .unreachable(name: service, reason: "cancelled")
        } catch {
            throw .unreachable(name: service, reason: Self.reason(error))
        }
    }

    /// A form-encoded POST (the OAuth endpoints).
    func postForm(_ url: String, _ fields: [(String, String)], service: String) async throws(GoogleError) -> GoogleResponse {
        try await send(
            .POST, url, headers: [("content-type", "application/x-www-form-urlencoded")],
            body: Data(FormEncoding.encode(fields).utf8), service: service)
    }

    private static func reason(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return "connection timed out"
            case .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: break
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text.count > 160 ? String(text.prefix(160)) + "…" : text
    }
}

/// `application/x-www-form-urlencoded` and query strings.
enum FormEncoding {
    private static let unreserved = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// One value, percent-encoded.
    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// Fields joined as `a=1&b=2`.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// `base` with the fields as its query.
    static func url(_ base: String, _ fields: [(String, String?)]) -> String {
        let present = fields.compactMap { field in field.1.map { (field.0, $0) } }
        return present.isEmpty ? base : base + "?" + encode(present)
    }

    /// A query string's fields, decoded (`+` is a space).
    static func decode(_ query: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            guard let name = parts.first else { continue }
            fields[name] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}
