import ParleyCore

/// A JSON Schema as a guided-generation schema can hold it: what Apple's Foundation Models
/// framework builds with `DynamicGenerationSchema` (objects of named properties, arrays with a
/// count range, strings from a list of choices or matching a pattern, numbers in a range,
/// booleans, a choice of alternatives). Built from Parley's ``JSONSchema`` on every platform,
/// so the mapping is tested here; the Apple shell only spells each case in the framework's
/// terms. What such a schema cannot say is listed in ``GuidedSchema/Mapping/dropped`` (the
/// generated JSON is still validated against the full schema afterwards).
public indirect enum GuidedSchema: Sendable, Equatable {
    /// An object with these properties, in order.
    case object(name: String, description: String?, properties: [Property])
    /// An array of `items`, with at least `minimum` and at most `maximum` of them.
    case array(items: GuidedSchema, minimum: Int?, maximum: Int?)
    /// A string: any, one of `choices`, or matching `pattern`.
    case string(description: String?, choices: [String]?, pattern: String?)
    /// A whole number in a range.
    case integer(description: String?, minimum: Int?, maximum: Int?)
    /// A number in a range.
    case number(description: String?, minimum: Double?, maximum: Double?)
    /// `true` or `false`.
    case boolean(description: String?)
    /// One of these alternatives.
    case anyOf(name: String, choices: [GuidedSchema])

    /// One property of an object.
    public struct Property: Sendable, Equatable {
        public var name: String
        public var description: String?
        public var schema: GuidedSchema
        public var isOptional: Bool
    }

    /// A schema mapped, and what of it could not be said.
    public struct Mapping: Sendable, Equatable {
        /// The guided schema.
        public var schema: GuidedSchema
        /// The JSON Schema features left out, with where they were (`/tags/items: maxLength`).
        public var dropped: [String]
    }

    /// `schema` as a guided schema named `name` (objects need names; nested ones get the
    /// path's).
    public static func mapping(_ schema: JSONSchema, name: String) -> Mapping {
        var dropped: [String] = []
        let mapped = map(schema, name: name, path: "", dropped: &dropped)
        return Mapping(schema: mapped, dropped: dropped)
    }

    private static func map(_ schema: JSONSchema, name: String, path: String, dropped: inout [String]) -> GuidedSchema {
        let here = path.isEmpty ? "/" : path
        switch schema.kind {
        case .object(let properties, let additional):
            if additional { dropped.append("\(here): additionalProperties") }
            return .object(
                name: name, description: schema.description,
                properties: properties.map { property in
                    Property(
                        name: property.name, description: property.schema.description,
                        schema: map(property.schema, name: name + "_" + property.name, path: path + "/" + property.name, dropped: &dropped),
                        isOptional: !property.isRequired)
                })
        case .array(let items, let minItems, let maxItems):
            return .array(
                items: map(items, name: name + "_item", path: path + "/items", dropped: &dropped),
                minimum: minItems > 0 ? minItems : nil, maximum: maxItems)
        case .string(let rules):
            if rules.minLength > 0 { dropped.append("\(here): minLength") }
            if rules.maxLength != nil { dropped.append("\(here): maxLength") }
            if rules.format != nil { dropped.append("\(here): format") }
            return .string(description: schema.description, choices: nil, pattern: rules.pattern)
        case .number(let rules):
            if rules.exclusiveMinimum != nil || rules.exclusiveMaximum != nil { dropped.append("\(here): exclusive bounds") }
            if rules.integer {
                return .integer(
                    description: schema.description, minimum: rules.minimum.map { Int($0.rounded(.up)) },
                    maximum: rules.maximum.map { Int($0.rounded(.down)) })
            }
            return .number(description: schema.description, minimum: rules.minimum, maximum: rules.maximum)
        case .boolean:
            return .boolean(description: schema.description)
        case .enumeration(let values):
            let strings = values.compactMap(\.string)
            if strings.count != values.count { dropped.append("\(here): non-string enum values") }
            return .string(description: schema.description, choices: strings, pattern: nil)
        case .constant(let value):
            if let text = value.string { return .string(description: schema.description, choices: [text], pattern: nil) }
            dropped.append("\(here): non-string const")
            return .string(description: schema.description, choices: nil, pattern: nil)
        case .anyOf(let options):
            // `X or null` is an optional X: the property is left out rather than null.
            let present = options.filter { $0.kind != .null }
            if present.count == 1 { return map(present[0], name: name, path: path, dropped: &dropped) }
            return .anyOf(
                name: name,
                choices: present.enumerated().map { index, option in
                    map(option, name: "\(name)_\(index)", path: "\(path)/anyOf/\(index)", dropped: &dropped)
                })
        case .null:
            dropped.append("\(here): null")
            return .string(description: schema.description, choices: nil, pattern: nil)
        case .any:
            dropped.append("\(here): any value (a string is generated)")
            return .string(description: schema.description, choices: nil, pattern: nil)
        }
    }
}
