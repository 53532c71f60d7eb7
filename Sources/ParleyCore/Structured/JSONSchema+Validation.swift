import Foundation

/// One way a value breaks its schema.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Where in the value, e.g. `$.steps[2].minutes`.
    public var path: String
    /// What is wrong there.
    public var message: String

    /// Creates a violation.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

extension JSONSchema {
    /// Every way `value` breaks the schema (empty when it is valid), in document order.
    public func violations(of value: JSONValue) -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        check(value, at: "$", into: &found)
        return found
    }

    /// Whether `value` follows the schema.
    public func validates(_ value: JSONValue) -> Bool { violations(of: value).isEmpty }

    private func check(_ value: JSONValue, at path: String, into found: inout [SchemaViolation]) {
        func fail(_ message: String) { found.append(SchemaViolation(path: path, message: message)) }
        switch kind {
        case .any:
            return
        case .null:
            if !value.isNull { fail("expected null, got \(value.kindName)") }
        case .boolean:
            if value.bool == nil { fail("expected true or false, got \(value.kindName)") }
        case .constant(let expected):
            if value != expected { fail("expected \(expected.text)") }
        case .enumeration(let values):
            if !values.contains(value) { fail("expected one of \(values.map(\.text).joined(separator: ", ")), got \(value.text)") }
        case .anyOf(let options):
            if !options.contains(where: { $0.validates(value) }) {
                // The closest option's complaints say the most.
                let closest =
                    options.map { option -> [SchemaViolation] in
                        var complaints: [SchemaViolation] = []
                        option.check(value, at: path, into: &complaints)
                        return complaints
                    }.min { $0.count < $1.count } ?? []
                if options.count == 2, options.contains(where: { $0.kind == .null }) {
                    found.append(contentsOf: closest.map { SchemaViolation(path: $0.path, message: $0.message + " (or null)") })
                } else {
                    fail("matches none of the \(options.count) allowed shapes" + (closest.first.map { "; nearest: \($0.message)" } ?? ""))
                }
            }
        case .string(let rules):
            guard let text = value.string else { return fail("expected a string, got \(value.kindName)") }
            let length = text.count
            if length < rules.minLength { fail("expected at least \(rules.minLength) characters, got \(length)") }
            if let maxLength = rules.maxLength, length > maxLength { fail("expected at most \(maxLength) characters, got \(length)") }
            if let pattern = rules.pattern, !Self.matches(text, pattern: pattern) { fail("does not match the pattern \(pattern)") }
            if let format = rules.format, let formatPattern = Self.formatPatterns[format], !Self.matches(text, pattern: formatPattern) {
                fail("is not a valid \(format)")
            }
        case .number(let rules):
            guard let number = value.number else { return fail("expected a\(rules.integer ? "n integer" : " number"), got \(value.kindName)") }
            if rules.integer, number.rounded() != number { fail("expected a whole number, got \(value.text)") }
            if let minimum = rules.minimum, number < minimum { fail("expected at least \(JSONValue.number(minimum).text), got \(value.text)") }
            if let maximum = rules.maximum, number > maximum { fail("expected at most \(JSONValue.number(maximum).text), got \(value.text)") }
            if let bound = rules.exclusiveMinimum, number <= bound { fail("expected more than \(JSONValue.number(bound).text), got \(value.text)") }
            if let bound = rules.exclusiveMaximum, number >= bound { fail("expected less than \(JSONValue.number(bound).text), got \(value.text)") }
        case .array(let items, let minItems, let maxItems):
            guard let elements = value.array else { return fail("expected an array, got \(value.kindName)") }
            if elements.count < minItems { fail("expected at least \(minItems) items, got \(elements.count)") }
            if let maxItems, elements.count > maxItems { fail("expected at most \(maxItems) items, got \(elements.count)") }
            for (index, element) in elements.enumerated() { items.check(element, at: "\(path)[\(index)]", into: &found) }
        case .object(let properties, let additional):
            guard let members = value.object else { return fail("expected an object, got \(value.kindName)") }
            for property in properties {
                let memberPath = Self.memberPath(path, property.name)
                if let member = members[property.name] {
                    property.schema.check(member, at: memberPath, into: &found)
                } else if property.isRequired {
                    found.append(SchemaViolation(path: memberPath, message: "is required but missing"))
                }
            }
            if !additional {
                let known = Set(properties.map(\.name))
                for key in members.keys where !known.contains(key) {
                    found.append(SchemaViolation(path: Self.memberPath(path, key), message: "is not a property of this object"))
                }
            }
        }
    }

    private static func memberPath(_ path: String, _ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? "\(path).\(name)" : "\(path)[\(JSONValue.string(name).text)]"
    }

    /// Patterns for the named string formats Parley checks (and grammars enforce).
    public static let formatPatterns: [String: String] = [
        "date": #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#,
        "time": #"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$"#,
        "date-time": #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$"#,
        "email": #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#,
        "uri": #"^[A-Za-z][A-Za-z0-9+.-]*:\S+$"#,
        "uuid": #"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"#,
    ]

    /// Whether `text` contains a match of `pattern` (JSON Schema patterns are not anchored).
    static func matches(_ text: String, pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return true }  // an unusable pattern constrains nothing
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

extension JSONValue {
    /// The JSON type's name, for messages: "a string", "null", …
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
