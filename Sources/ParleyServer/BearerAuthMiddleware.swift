import Foundation
import HTTPTypes
import Hummingbird
import ParleyStore

/// Requires `Authorization: Bearer KEY` with one of the server's keys on every path but the
/// open ones (`/health`, the browser client's files), and makes the key's owner the request's
/// ``ServerRequestContext/owner``. Keys are compared in constant time and never logged.
///
/// A browser cannot set headers on a WebSocket, so on the WebSocket routes the key may instead
/// be offered as the subprotocol `openai-insecure-api-key.KEY` (what OpenAI's browser clients
/// send, beside the subprotocol `realtime`).
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The prefix of the subprotocol that carries a key.
    static let keyProtocolPrefix = "openai-insecure-api-key."

    let keys: [[UInt8]]
    /// The owner of each key, in the same order.
    let owners: [Owner]
    let openPaths: Set<String>
    /// Whether a key offered as a WebSocket subprotocol counts (the WebSocket routes only).
    let acceptsKeyProtocol: Bool

    init(keys: [String], openPaths: Set<String>, acceptsKeyProtocol: Bool = false) {
        self.keys = keys.map { Array($0.utf8) }
        self.owners = keys.map(Owner.apiKey)
        self.openPaths = openPaths
        self.acceptsKeyProtocol = acceptsKeyProtocol
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !keys.isEmpty, !openPaths.contains(request.uri.path) else { return try await next(request, context) }
        let offered = acceptsKeyProtocol ? Self.protocolKey(request.headers[values: .secWebSocketProtocol]) : nil
        guard let presented = Self.bearerToken(request.headers[.authorization]) ?? offered else {
            throw OpenAIError.unauthorized(keyGiven: false)
        }
        guard let matched = Self.index(of: presented, among: keys) else { throw OpenAIError.unauthorized(keyGiven: true) }
        var context = context
        context.keyIndex = matched
        context.owner = owners[matched]
        return try await next(request, context)
    }

    /// Which of `keys` is `presented`, compared with every key in constant time.
    static func index(of presented: [UInt8], among keys: [[UInt8]]) -> Int? {
        var matched: Int?
        for (index, key) in keys.enumerated() where constantTimeEquals(key, presented) { matched = index }
        return matched
    }

    /// The token of a `Bearer` authorization value (the scheme is case-insensitive).
    static func bearerToken(_ value: String?) -> [UInt8]? {
        guard let value else { return nil }
        // Bytes rather than Foundation's character sets: this runs for every request.
        let bytes = Array(value.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        while start < bytes.count, isSpace(bytes[start]) { start += 1 }
        let scheme = Array("bearer".utf8)
        guard bytes.count >= start + scheme.count,
              zip(bytes[start..<(start + scheme.count)], scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        var tokenStart = start + scheme.count
        guard tokenStart < bytes.count, isSpace(bytes[tokenStart]) else { return nil }
        while tokenStart < bytes.count, isSpace(bytes[tokenStart]) { tokenStart += 1 }
        var end = bytes.count
        while end > tokenStart, isSpace(bytes[end - 1]) { end -= 1 }
        return end > tokenStart ? Array(bytes[tokenStart..<end]) : nil
    }

    /// The key offered as a subprotocol (`openai-insecure-api-key.KEY`) in the values of
    /// `Sec-WebSocket-Protocol`, each a comma-separated list.
    static func protocolKey(_ values: [String]) -> [UInt8]? {
        for name in WebSocketProtocols.names(in: values) where name.hasPrefix(keyProtocolPrefix) {
            let key = name.dropFirst(keyProtocolPrefix.count)
            if !key.isEmpty { return Array(key.utf8) }
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing does not reveal a key.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
