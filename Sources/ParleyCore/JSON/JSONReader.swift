/// A JSON parser that keeps object members in order and, for streams, reads a prefix of a
/// JSON text as far as it goes.
enum JSONReader {
    /// Parses a whole JSON text; anything but whitespace after the value is an error.
    static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var reader = Cursor(bytes: Array(text.utf8), partial: false)
        reader.skipWhitespace()
        guard let value = try reader.value() else { throw reader.error("no value") }
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.error("text after the value") }
        return value
    }

    /// Reads the start of a JSON text that may stop anywhere (a reply still streaming):
    /// unfinished strings are cut where they stop, members without a value are left out, an
    /// unfinished literal or number is dropped. `nil` when no value has started yet or the
    /// text is not the start of JSON.
    static func parsePrefix(_ text: String) -> JSONValue? {
        var reader = Cursor(bytes: Array(text.utf8), partial: true)
        reader.skipWhitespace()
        return try? reader.value()
    }

    private struct Cursor {
        let bytes: [UInt8]
        let partial: Bool
        var position = 0
        var depth = 0

        init(bytes: [UInt8], partial: Bool) {
            self.bytes = bytes
            self.partial = partial
        }

        var atEnd: Bool { position >= bytes.count }

        func error(_ reason: String) -> JSONSyntaxError {
            JSONSyntaxError(reason: reason, offset: String(decoding: bytes.prefix(position), as: UTF8.self).count)
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        /// The next value; `nil` only in partial mode when the text ends before a value is usable.
        mutating func value() throws(JSONSyntaxError) -> JSONValue? {
            guard position < bytes.count else {
                if partial { return nil }
                throw error("the text ends where a value should be")
            }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return try string().map(JSONValue.string)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue? {
            let expected = Array(word.utf8)
            let available = bytes[position...].prefix(expected.count)
            guard available.elementsEqual(expected.prefix(available.count)) else { throw error("expected \(word)") }
            guard available.count == expected.count else {
                if partial { position = bytes.count; return nil }
                throw error("the text ends inside \(word)")
            }
            position += expected.count
            return value
        }

        mutating func number() throws(JSONSyntaxError) -> JSONValue? {
            let start = position
            func digits(_ cursor: inout Cursor) -> Int {
                let from = cursor.position
                while cursor.position < cursor.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(cursor.bytes[cursor.position]) {
                    cursor.position += 1
                }
                return cursor.position - from
            }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            var complete = digits(&self) > 0
            if complete, bytes[start] == UInt8(ascii: "-") ? bytes[start + 1] == UInt8(ascii: "0") : bytes[start] == UInt8(ascii: "0"),
                position - start > (bytes[start] == UInt8(ascii: "-") ? 2 : 1)
            {
                position = start
                throw error("a number with a leading zero")
            }
            if complete, position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                complete = digits(&self) > 0
            }
            if complete, position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                complete = digits(&self) > 0
            }
            guard complete else {
                if partial, atEnd { return nil }
                throw error("an unfinished number")
            }
            // In a stream, a number at the very end may still grow; it is dropped until it ends.
            if partial, atEnd { return nil }
            guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else { throw error("a number out of range") }
            return .number(value)
        }

        /// A string; in partial mode, the text so far when the string does not end.
        mutating func string() throws(JSONSyntaxError) -> String? {
            position += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ cursor: Cursor, upTo end: Int, into scalars: inout String.UnicodeScalarView) {
                scalars.append(contentsOf: String(decoding: cursor.bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flush(self, upTo: position, into: &scalars)
                    position += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("a control character inside a string") }
                if byte == UInt8(ascii: "\\") {
                    flush(self, upTo: position, into: &scalars)
                    run = position
                    guard position + 1 < bytes.count else { break }
                    let escape = bytes[position + 1]
                    position += 2
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else {
                            if partial, position + 4 > bytes.count { position = bytes.count; return String(scalars) }
                            throw error("a bad \\u escape")
                        }
                        if (0xD800..<0xDC00).contains(unit) {
                            // A high surrogate needs its low half.
                            if position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                                position += 2
                                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                                if let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) { scalars.append(scalar) }
                            } else if partial, position + 6 > bytes.count {
                                position = bytes.count
                                return String(scalars)
                            } else {
                                throw error("a lone surrogate")
                            }
                        } else if let scalar = Unicode.Scalar(unit) {
                            scalars.append(scalar)
                        } else {
                            throw error("a lone surrogate")
                        }
                    default:
                        throw error("an unknown escape")
                    }
                    run = position
                    continue
                }
                position += 1
            }
            guard partial else { throw error("the text ends inside a string") }
            if run <= min(position, bytes.count) { flush(self, upTo: min(position, bytes.count), into: &scalars) }
            position = bytes.count
            return String(scalars)
        }

        mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[position..<position + 4] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                value = value << 4 | digit
            }
            position += 4
            return value
        }

        mutating func nest() throws(JSONSyntaxError) {
            depth += 1
            if depth > 512 { throw error("nesting deeper than 512") }
        }

        mutating func array() throws(JSONSyntaxError) -> JSONValue? {
            try nest()
            defer { depth -= 1 }
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                guard let element = try value() else { return .array(elements) }  // partial: ends here
                elements.append(element)
                skipWhitespace()
                guard position < bytes.count else {
                    if partial { return .array(elements) }
                    throw error("the text ends inside an array")
                }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return .array(elements)
                default: throw error("expected , or ] in an array")
                }
            }
        }

        mutating func object() throws(JSONSyntaxError) -> JSONValue? {
            try nest()
            defer { depth -= 1 }
            position += 1
            var members = JSONObject()
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count else {
                    if partial { return .object(members) }
                    throw error("the text ends inside an object")
                }
                guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
                // A key cut off by the end of the text gets no value below, so it is never added.
                guard let key = try string() else { return .object(members) }
                skipWhitespace()
                guard position < bytes.count else {
                    if partial { return .object(members) }
                    throw error("the text ends inside an object")
                }
                guard bytes[position] == UInt8(ascii: ":") else { throw error("expected : after a member name") }
                position += 1
                skipWhitespace()
                guard let member = try value() else { return .object(members) }
                members[key] = member
                skipWhitespace()
                guard position < bytes.count else {
                    if partial { return .object(members) }
                    throw error("the text ends inside an object")
                }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return .object(members)
                default: throw error("expected , or } in an object")
                }
            }
        }
    }
}
