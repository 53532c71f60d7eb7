import Foundation

/// Any JSON value, for schemas and structured output that travel through typed code.
///
/// Objects keep their members' order. ``init(parsing:)-(String)`` and ``text`` read and write JSON
/// with that order kept; `Codable` (through Foundation's coders) works too but does not
/// promise an order.
public enum JSONValue: Sendable, Equatable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON has one kind; integers are exact up to 2^53).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
    case object(JSONObject)

    /// Parses JSON text, keeping the order of object members.
    ///
    /// - Throws: ``JSONSyntaxError`` saying where the text stops being JSON.
    public init(parsing text: String) throws(JSONSyntaxError) {
        self = try JSONReader.parse(text)
    }

    /// Parses JSON bytes (UTF-8), keeping the order of object members.
    public init(parsing data: Data) throws(JSONSyntaxError) {
        self = try JSONReader.parse(String(decoding: data, as: UTF8.self))
    }

    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberKey.self) {
            var object = JSONObject()
            for key in container.allKeys { object[key.stringValue] = try container.decode(JSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .object(let object) = self {
            var container = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in object { try container.encode(value, forKey: MemberKey(stringValue: key)) }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = JSONValue.exactInteger(value) { try container.encode(integer) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object: break
        }
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string value.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The value of a number.
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The value of a boolean.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements of an array.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members of an object.
    public var object: JSONObject? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The value of a whole number within `range`; `nil` for a fraction, a number outside the
    /// range (1e19 included: it never traps), or anything that is not a number. Every number a
    /// client sends goes through this (or a `Double` range check) before it becomes an `Int`.
    public func integer(in range: ClosedRange<Int>) -> Int? {
        guard case .number(let value) = self, let whole = Int(exactly: value), range.contains(whole) else { return nil }
        return whole
    }

    /// `value` as an integer when it is one and fits exactly.
    static func exactInteger(_ value: Double) -> Int64? {
        value.rounded() == value && abs(value) < 1e15 ? Int64(value) : nil
    }
}
