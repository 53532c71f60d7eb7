import Foundation

/// A schema Parley cannot use, with where in it the problem is.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, and what to do.
    public var reason: String
    /// Where in the schema, as a JSON pointer (e.g. `/properties/steps/items`).
    public var pointer: String

    /// Creates an error.
    public init(_ reason: String, at pointer: String) {
        self.reason = reason
        self.pointer = pointer
    }

    public var description: String {
        "Unusable JSON schema at \(pointer.isEmpty ? "the root" : pointer): \(reason)"
    }
}

extension JSONSchema {
    /// Reads a JSON schema document.
    ///
    /// - Throws: ``SchemaError`` for keywords that change what is valid but are not supported
    ///   (`not`, `if`, `allOf` with several parts, `patternProperties`, recursive `$ref`), or
    ///   malformed values.
    public init(json: JSONValue) throws(SchemaError) {
        var reader = SchemaReader(root: json)
        self = try reader.read(json, at: "")
    }

    /// Reads a JSON schema from its text.
    public init(parsing text: String) throws(SchemaError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw SchemaError("\(error)", at: "") }
        try self.init(json: value)
    }

    /// The schema as a JSON schema document (properties in order).
    public var json: JSONValue {
        var members = JSONObject()
        switch kind {
        case .object(let properties, let additional):
            members["type"] = "object"
            if !properties.isEmpty {
                members["properties"] = .object(JSONObject(properties.map { ($0.name, $0.schema.json) }))
                members["required"] = .array(properties.filter(\.isRequired).map { .string($0.name) })
            }
            members["additionalProperties"] = .bool(additional)
        case .array(let items, let minItems, let maxItems):
            members["type"] = "array"
            members["items"] = items.json
            if minItems > 0 { members["minItems"] = .number(Double(minItems)) }
            if let maxItems { members["maxItems"] = .number(Double(maxItems)) }
        case .string(let rules):
            members["type"] = "string"
            if rules.minLength > 0 { members["minLength"] = .number(Double(rules.minLength)) }
            if let maxLength = rules.maxLength { members["maxLength"] = .number(Double(maxLength)) }
            if let pattern = rules.pattern { members["pattern"] = .string(pattern) }
            if let format = rules.format { members["format"] = .string(format) }
        case .number(let rules):
            members["type"] = rules.integer ? "integer" : "number"
            if let minimum = rules.minimum { members["minimum"] = .number(minimum) }
            if let maximum = rules.maximum { members["maximum"] = .number(maximum) }
            if let bound = rules.exclusiveMinimum { members["exclusiveMinimum"] = .number(bound) }
            if let bound = rules.exclusiveMaximum { members["exclusiveMaximum"] = .number(bound) }
        case .boolean: members["type"] = "boolean"
        case .null: members["type"] = "null"
        case .enumeration(let values): members["enum"] = .array(values)
        case .constant(let value): members["const"] = value
        case .anyOf(let options): members["anyOf"] = .array(options.map(\.json))
        case .any: break
        }
        if let description { members["description"] = .string(description) }
        return .object(members)
    }

    /// Whether OpenAI's strict structured outputs accept the schema as it is: every object
    /// lists all its properties as required and allows no others, and nothing uses keywords
    /// strict mode rejects (string lengths, array counts, number ranges are dropped by it).
    public var isStrictCompatible: Bool {
        switch kind {
        case .object(let properties, let additional):
            return !additional && !properties.isEmpty && properties.allSatisfy { $0.isRequired && $0.schema.isStrictCompatible }
        case .array(let items, _, _): return items.isStrictCompatible
        case .anyOf(let options): return options.allSatisfy(\.isStrictCompatible)
        case .any: return false
        default: return true
        }
    }
}

/// Reads schema documents, resolving local `$ref`s.
private struct SchemaReader {
    let root: JSONValue
    var resolving: [String] = []

    init(root: JSONValue) { self.root = root }

    mutating func read(_ value: JSONValue, at pointer: String) throws(SchemaError) -> JSONSchema {
        if case .bool(let allowsAll) = value {
            guard allowsAll else { throw SchemaError("the schema `false` admits nothing", at: pointer) }
            return JSONSchema(.any)
        }
        guard let members = value.object else { throw SchemaError("a schema must be an object", at: pointer) }
        let description = members["description"]?.string ?? members["title"]?.string
        for keyword in ["not", "if", "patternProperties", "dependentSchemas", "propertyNames", "prefixItems"] where members[keyword] != nil {
            throw SchemaError("`\(keyword)` is not supported; describe the value with type, properties, items, enum or anyOf", at: pointer)
        }
        if let reference = members["$ref"]?.string {
            return try resolve(reference, at: pointer, description: description)
        }
        if let parts = members["allOf"]?.array {
            guard parts.count == 1, let only = parts.first else {
                throw SchemaError("`allOf` with several parts is not supported; merge them into one schema", at: pointer)
            }
            var schema = try read(only, at: pointer + "/allOf/0")
            if let description { schema.description = description }
            return schema
        }
        if let constant = members["const"] { return JSONSchema(.constant(constant), description: description) }
        if let values = members["enum"] {
            guard let values = values.array, !values.isEmpty else { throw SchemaError("`enum` must be a non-empty array", at: pointer) }
            return JSONSchema(.enumeration(values), description: description)
        }
        for keyword in ["anyOf", "oneOf"] {
            guard let options = members[keyword] else { continue }
            guard let options = options.array, !options.isEmpty else { throw SchemaError("`\(keyword)` must be a non-empty array", at: pointer) }
            var read: [JSONSchema] = []
            for (index, option) in options.enumerated() { read.append(try self.read(option, at: "\(pointer)/\(keyword)/\(index)")) }
            return JSONSchema(.anyOf(read), description: description)
        }
        let types: [String]
        switch members["type"] {
        case .string(let type)?: types = [type]
        case .array(let list)?:
            types = list.compactMap(\.string)
            guard types.count == list.count, !types.isEmpty else { throw SchemaError("`type` must name types", at: pointer) }
        case nil:
            if members["properties"] != nil {
                types = ["object"]
            } else if members["items"] != nil {
                types = ["array"]
            } else {
                return JSONSchema(.any, description: description)
            }
        default:
            throw SchemaError("`type` must be a string or an array of strings", at: pointer)
        }
        var kinds: [JSONSchema] = []
        for type in types { kinds.append(try typed(type, members, at: pointer)) }
        if kinds.count == 1, let only = kinds.first { return JSONSchema(only.kind, description: description) }
        return JSONSchema(.anyOf(kinds), description: description)
    }

    private mutating func typed(_ type: String, _ members: JSONObject, at pointer: String) throws(SchemaError) -> JSONSchema {
        func count(_ keyword: String) throws(SchemaError) -> Int? {
            guard let value = members[keyword] else { return nil }
            guard let number = value.number, number >= 0, number.rounded() == number, number < 1e9 else {
                throw SchemaError("`\(keyword)` must be a whole number ≥ 0", at: pointer)
            }
            return Int(number)
        }
        func bound(_ keyword: String) throws(SchemaError) -> Double? {
            guard let value = members[keyword] else { return nil }
            guard let number = value.number else { throw SchemaError("`\(keyword)` must be a number", at: pointer) }
            return number
        }
        switch type {
        case "object":
            var properties: [JSONSchema.Property] = []
            let required = Set(members["required"]?.array?.compactMap(\.string) ?? [])
            if let listed = members["properties"] {
                guard let listed = listed.object else { throw SchemaError("`properties` must be an object", at: pointer) }
                for (name, schema) in listed {
                    let property = try read(schema, at: "\(pointer)/properties/\(name)")
                    properties.append(JSONSchema.Property(name, property, required: required.contains(name)))
                }
            }
            for name in required where !properties.contains(where: { $0.name == name }) {
                throw SchemaError("`required` names \"\(name)\", which is not among the properties", at: pointer)
            }
            let additional: Bool
            switch members["additionalProperties"] {
            case .bool(let allowed)?: additional = allowed
            case nil: additional = properties.isEmpty
            default: additional = true  // a schema for the extra members: they are allowed, never generated
            }
            return JSONSchema(.object(properties, additional: additional))
        case "array":
            let items = try members["items"].map { item throws(SchemaError) in try read(item, at: pointer + "/items") } ?? JSONSchema(.any)
            let minItems = try count("minItems") ?? 0
            let maxItems = try count("maxItems")
            if let maxItems, maxItems < minItems { throw SchemaError("`maxItems` is below `minItems`", at: pointer) }
            return JSONSchema(.array(items: items, minItems: minItems, maxItems: maxItems))
        case "string":
            let rules = JSONSchema.StringRules(
                minLength: try count("minLength") ?? 0, maxLength: try count("maxLength"),
                pattern: members["pattern"]?.string, format: members["format"]?.string)
            if let maxLength = rules.maxLength, maxLength < rules.minLength { throw SchemaError("`maxLength` is below `minLength`", at: pointer) }
            return JSONSchema(.string(rules))
        case "integer", "number":
            let rules = JSONSchema.NumberRules(
                integer: type == "integer", minimum: try bound("minimum"), maximum: try bound("maximum"),
                exclusiveMinimum: try bound("exclusiveMinimum"), exclusiveMaximum: try bound("exclusiveMaximum"))
            if let minimum = rules.minimum, let maximum = rules.maximum, maximum < minimum {
                throw SchemaError("`maximum` is below `minimum`", at: pointer)
            }
            return JSONSchema(.number(rules))
        case "boolean": return JSONSchema(.boolean)
        case "null": return JSONSchema(.null)
        default: throw SchemaError("unknown type \"\(type)\"", at: pointer)
        }
    }

    private mutating func resolve(_ reference: String, at pointer: String, description: String?) throws(SchemaError) -> JSONSchema {
        guard reference.hasPrefix("#") else { throw SchemaError("only local references (#/$defs/…) are supported, not \(reference)", at: pointer) }
        guard !resolving.contains(reference) else {
            throw SchemaError("the reference \(reference) refers to itself; recursive schemas are not supported, give the nesting a fixed depth", at: pointer)
        }
        var target = root
        for token in reference.dropFirst().split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = target[key] else { throw SchemaError("the reference \(reference) points to nothing", at: pointer) }
            target = next
        }
        resolving.append(reference)
        defer { resolving.removeLast() }
        var schema = try read(target, at: String(reference.dropFirst()))
        if let description { schema.description = description }
        return schema
    }
}
