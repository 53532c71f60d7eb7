/// A `POST /v1/chat/completions` body of the plainest kind, recognized by one pass over its
/// bytes instead of a decoding: what the relay on the event loop sees most, and may send on
/// without asking more of it.
///
/// Recognized: an object whose keys are among `model` (a string), `messages` (text messages:
/// objects of exactly a `role` among system, developer, user and assistant, and a string
/// `content`; at least one from the user or the assistant, or instructions that are not empty:
/// OpenAI answers instructions alone), `stream` (`false`),
/// `max_tokens` and `max_completion_tokens` (integers of at least 1), `temperature` (0 to 2),
/// `top_p` (above 0, at most 1) and `user` (a string), each at most once, all ASCII. Such a
/// body decodes as ``ChatCompletionRequest`` into a request without a stream, a response
/// schema or images that ``ChatCompletionRequest/chatRequest()`` accepts. Anything else (other
/// keys, other forms, escapes in a key, a role or the model's name, characters beyond ASCII,
/// invalid JSON) is not recognized, and is left to the decoder, which decides what it is.
struct PlainChatBody: Equatable {
    /// The model the body names, if it names one.
    var model: String?
    /// The temperature it asks for, if it asks for one (a request at 0 may be answered from
    /// the response cache).
    var temperature: Double?
    /// Whether it names an end user (`user`, not empty): such a request is personal, and never
    /// answered from the response cache.
    var namesUser = false

    /// Recognizes `bytes`; `nil` for a body of any other kind.
    init?(_ bytes: some Collection<UInt8>) {
        guard let found = bytes.withContiguousStorageIfAvailable({ Self.scan($0) }) ?? Self.scan(Array(bytes)) else { return nil }
        self = found
    }

    init(model: String?, temperature: Double? = nil, namesUser: Bool = false) {
        self.model = model
        self.temperature = temperature
        self.namesUser = namesUser
    }

    private static func scan(_ buffer: UnsafeBufferPointer<UInt8>) -> PlainChatBody? {
        var scanner = Scanner(bytes: buffer)
        return scanner.body()
    }

    private static func scan(_ bytes: [UInt8]) -> PlainChatBody? {
        bytes.withUnsafeBufferPointer { scan($0) }
    }
}

/// The pass over the bytes. Every function returns `nil` (or `false`) as soon as the body
/// leaves the plain kind.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    private enum Key: UInt8 {
        case model = 1, messages = 2, stream = 4, maxTokens = 8, maxCompletionTokens = 16, temperature = 32, topP = 64, user = 128
    }

    mutating func body() -> PlainChatBody? {
        guard take(ascii: "{") else { return nil }
        var seen: UInt8 = 0
        var found = PlainChatBody(model: nil)
        repeat {
            guard let name = string(), !name.escaped, take(ascii: ":"), let key = Self.key(name.range, in: bytes) else { return nil }
            guard seen & key.rawValue == 0 else { return nil }
            seen |= key.rawValue
            switch key {
            case .model:
                guard let value = string(), !value.escaped else { return nil }
                found.model = String(decoding: bytes[value.range], as: UTF8.self)
            case .messages:
                guard messages() else { return nil }
            case .stream:
                guard literal("false") else { return nil }
            case .maxTokens, .maxCompletionTokens:
                guard let value = number(), value.isInteger, value.value >= 1 else { return nil }
            case .temperature:
                guard let value = number(), (0...2).contains(value.value) else { return nil }
                found.temperature = value.value
            case .topP:
                guard let value = number(), value.value > 0, value.value <= 1 else { return nil }
            case .user:
                guard let value = string() else { return nil }
                found.namesUser = !value.range.isEmpty
            }
        } while take(ascii: ",")
        guard take(ascii: "}"), seen & Key.messages.rawValue != 0 else { return nil }
        skipSpace()
        return index == bytes.count ? found : nil
    }

    private static func key(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Key? {
        switch bytes[range].count {
        case 4 where bytes[range].elementsEqual("user".utf8): .user
        case 5 where bytes[range].elementsEqual("model".utf8): .model
        case 5 where bytes[range].elementsEqual("top_p".utf8): .topP
        case 6 where bytes[range].elementsEqual("stream".utf8): .stream
        case 8 where bytes[range].elementsEqual("messages".utf8): .messages
        case 10 where bytes[range].elementsEqual("max_tokens".utf8): .maxTokens
        case 11 where bytes[range].elementsEqual("temperature".utf8): .temperature
        case 21 where bytes[range].elementsEqual("max_completion_tokens".utf8): .maxCompletionTokens
        default: nil
        }
    }

    /// `[` text messages `]`, at least one of them answerable: from the user or the
    /// assistant, or instructions with text.
    private mutating func messages() -> Bool {
        guard take(ascii: "[") else { return false }
        var answerable = false
        repeat {
            guard let counts = message() else { return false }
            answerable = answerable || counts
        } while take(ascii: ",")
        return take(ascii: "]") && answerable
    }

    /// One text message; whether a model could answer it alone — the user's or the
    /// assistant's, or a system or developer message with text (`nil`: not plain).
    private mutating func message() -> Bool? {
        guard take(ascii: "{") else { return nil }
        var role: Bool?, content: Range<Int>?
        repeat {
            guard let name = string(), !name.escaped, take(ascii: ":") else { return nil }
            let field = bytes[name.range]
            if field.elementsEqual("role".utf8), role == nil {
                guard let value = string(), !value.escaped else { return nil }
                let text = bytes[value.range]
                if text.elementsEqual("user".utf8) || text.elementsEqual("assistant".utf8) {
                    role = true
                } else if text.elementsEqual("system".utf8) || text.elementsEqual("developer".utf8) {
                    role = false
                } else {
                    return nil
                }
            } else if field.elementsEqual("content".utf8), content == nil {
                guard let value = string() else { return nil }
                content = value.range
            } else {
                return nil
            }
        } while take(ascii: ",")
        guard take(ascii: "}"), let content, let role else { return nil }
        return role || !content.isEmpty
    }

    // MARK: - JSON, the plain subset

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func take(ascii character: Unicode.Scalar) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = word.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
        if matches { index += count }
        return matches
    }

    /// A string of ASCII characters: the range of its contents (between the quotes), and
    /// whether it holds an escape. Escapes are checked (a `\u` one may not be half of a
    /// surrogate pair).
    private mutating func string() -> (range: Range<Int>, escaped: Bool)? {
        guard take(ascii: "\"") else { return nil }
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (start..<index - 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                guard index + 1 < bytes.count else { return nil }
                let kind = bytes[index + 1]
                if kind == UInt8(ascii: "u") {
                    guard index + 6 <= bytes.count else { return nil }
                    var value = 0
                    for digit in bytes[index + 2..<index + 6] {
                        guard let nibble = Self.hex(digit) else { return nil }
                        value = value << 4 | nibble
                    }
                    guard !(0xD800...0xDFFF).contains(value) else { return nil }
                    index += 6
                } else {
                    guard "\"\\/bfnrt".utf8.contains(kind) else { return nil }
                    index += 2
                }
            case 0x20..<0x80:
                index += 1
            default:
                return nil  // a control character (invalid) or beyond ASCII (left to the decoder)
            }
        }
        return nil
    }

    private static func hex(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// A number in JSON's grammar, and whether it is an integer (no fraction or exponent, at
    /// most 15 digits).
    private mutating func number() -> (value: Double, isInteger: Bool)? {
        skipSpace()
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        guard index - start <= 32, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else { return nil }
        return (value, isInteger && index - start <= 15)
    }
}
