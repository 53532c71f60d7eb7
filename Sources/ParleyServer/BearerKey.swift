import Foundation
import HTTPTypes
import ParleyData

/// How a request presents a key: `Authorization: Bearer KEY`, or on a WebSocket (a browser
/// cannot set its headers) the subprotocol `openai-insecure-api-key.KEY`, what OpenAI's browser
/// clients send beside `realtime`. ``Admission`` reads them; keys are compared in constant time
/// and never logged.
enum BearerKey {
    /// The prefix of the subprotocol that carries a key.
    static let keyProtocolPrefix = "openai-insecure-api-key."

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
            zip(bytes[start..<(start + scheme.count)], scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
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
