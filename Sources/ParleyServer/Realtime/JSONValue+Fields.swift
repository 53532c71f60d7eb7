import ParleyCore

extension JSONValue {
    /// The text of a string value.
    var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The value of a number.
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The value of a boolean.
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements of an array.
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members of an object.
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    var isNull: Bool { self == .null }
}
