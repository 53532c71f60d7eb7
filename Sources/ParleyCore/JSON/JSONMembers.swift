/// Where a JSON object's top-level members lie in its bytes, found by skipping over values
/// rather than parsing them: what a proxy needs to change one member of a body (the model it
/// names) or read one (the usage it reports) while passing the rest on byte for byte.
///
/// The scanner assumes nothing of the text: anything that is not a JSON object gives `nil`,
/// never a crash. It does not validate the values it skips (decode the body for that).
public enum JSONMembers {
    /// The byte range of the value of the top-level member `key` in the object `bytes` holds,
    /// or `nil` when it has no such member (or is not an object). With a key written twice,
    /// the last one counts, as decoders read it.
    public static func valueRange(of key: String, in bytes: [UInt8]) -> Range<Int>? {
        let wanted = Array(key.utf8)
        var found: Range<Int>?
        let complete = bytes.withUnsafeBufferPointer { buffer in
            forEachMember(in: buffer) { name, value in
                if buffer[name].elementsEqual(wanted) { found = value }
            }
        }
        return complete ? found : nil
    }

    /// `bytes` with the top-level member `key` set to `json` (a JSON value's text, written as
    /// is): replaced where it is, or added first when absent. `nil` when `bytes` is not an
    /// object.
    public static func setting(_ key: String, to json: String, in bytes: [UInt8]) -> [UInt8]? {
        if let range = valueRange(of: key, in: bytes) {
            var changed = bytes
            changed.replaceSubrange(range, with: json.utf8)
            return changed
        }
        var start = 0
        while start < bytes.count, isSpace(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == openBrace else { return nil }
        var after = start + 1
        while after < bytes.count, isSpace(bytes[after]) { after += 1 }
        guard after < bytes.count else { return nil }
        let isEmpty = bytes[after] == closeBrace
        var member = Array(JSONValue.string(key).text.utf8) + [colon] + Array(json.utf8)
        if !isEmpty { member.append(comma) }
        var changed = bytes
        changed.insert(contentsOf: member, at: start + 1)
        return changed
    }

    /// The range of the JSON value that starts at `start` (after any whitespace), or `nil`
    /// when the text ends first.
    public static func valueRange(startingAt start: Int, in bytes: [UInt8]) -> Range<Int>? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer, position: start)
            cursor.skipSpace()
            let from = cursor.position
            guard cursor.skipValue() else { return nil }
            return from..<cursor.position
        }
    }

    /// Visits each top-level member's name (without its quotes) and value ranges; `false`
    /// when the text is not a whole object.
    private static func forEachMember(in bytes: UnsafeBufferPointer<UInt8>, _ visit: (Range<Int>, Range<Int>) -> Void) -> Bool {
        var cursor = Cursor(bytes: bytes, position: 0)
        cursor.skipSpace()
        guard cursor.take(openBrace) else { return false }
        cursor.skipSpace()
        if cursor.take(closeBrace) { return true }
        while true {
            cursor.skipSpace()
            guard cursor.peek == quote else { return false }
            let nameStart = cursor.position + 1
            guard cursor.skipString() else { return false }
            let name = nameStart..<(cursor.position - 1)
            cursor.skipSpace()
            guard cursor.take(colon) else { return false }
            cursor.skipSpace()
            let valueStart = cursor.position
            guard cursor.skipValue() else { return false }
            visit(name, valueStart..<cursor.position)
            cursor.skipSpace()
            if cursor.take(comma) { continue }
            return cursor.take(closeBrace)
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            position += 1
            return true
        }

        mutating func skipSpace() {
            while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        }

        /// From an opening quote to just past the closing one.
        mutating func skipString() -> Bool {
            position += 1
            while position < bytes.count {
                switch bytes[position] {
                case backslash: position += 2
                case quote:
                    position += 1
                    return true
                default: position += 1
                }
            }
            return false
        }

        mutating func skipValue() -> Bool {
            guard let first = peek else { return false }
            switch first {
            case quote:
                return skipString()
            case openBrace, openBracket:
                var depth = 0
                while let byte = peek {
                    switch byte {
                    case quote:
                        guard skipString() else { return false }
                        continue
                    case openBrace, openBracket:
                        depth += 1
                    case closeBrace, closeBracket:
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return true
                        }
                    default: break
                    }
                    position += 1
                }
                return false
            case comma, colon, closeBrace, closeBracket:
                return false
            default:
                // A number, true, false or null: up to the next delimiter.
                let start = position
                while let byte = peek, byte != comma, byte != closeBrace, byte != closeBracket, !isSpace(byte) { position += 1 }
                return position > start
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let openBrace = UInt8(ascii: "{")
    private static let closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "[")
    private static let closeBracket = UInt8(ascii: "]")
    private static let comma = UInt8(ascii: ",")
    private static let colon = UInt8(ascii: ":")
}
