/// A JSON schema as a typed value: the subset Parley generates against, validates and turns
/// into grammars.
///
/// It covers objects (properties in order, required or optional), arrays (with item counts),
/// strings (lengths, a pattern, a format), numbers and integers (ranges), booleans, null,
/// enumerations, constants, `anyOf` (and `oneOf`, read as `anyOf`), `$ref` into `$defs`
/// (without cycles) and "any value". Build one in code (``object(_:description:)`` and
/// friends) or read one from JSON with ``init(json:)``.
public struct JSONSchema: Sendable, Hashable {
    /// What values the schema admits.
    public indirect enum Kind: Sendable, Hashable {
        /// An object with these properties, in order; other members are allowed only when
        /// `additional` (they are never generated).
        case object([Property], additional: Bool = false)
        /// An array of `items`, with at least `minItems` and at most `maxItems` elements.
        case array(items: JSONSchema, minItems: Int, maxItems: Int?)
        /// A string.
        case string(StringRules)
        /// A number; whole numbers only when `integer`.
        case number(NumberRules)
        /// `true` or `false`.
        case boolean
        /// `null`.
        case null
        /// One of these values.
        case enumeration([JSONValue])
        /// Exactly this value.
        case constant(JSONValue)
        /// A value that matches at least one of these schemas.
        case anyOf([JSONSchema])
        /// Any JSON value.
        case any
    }

    /// One property of an object.
    public struct Property: Sendable, Hashable {
        /// The member name.
        public var name: String
        /// The value's schema.
        public var schema: JSONSchema
        /// Whether the member must be present.
        public var isRequired: Bool

        /// Creates a property.
        public init(_ name: String, _ schema: JSONSchema, required: Bool = true) {
            self.name = name
            self.schema = schema
            self.isRequired = required
        }
    }

    /// What a string must look like.
    public struct StringRules: Sendable, Hashable {
        /// The fewest characters.
        public var minLength: Int
        /// The most characters, if limited.
        public var maxLength: Int?
        /// A regular expression the whole string must match (checked after generation).
        public var pattern: String?
        /// A named format: `date` (YYYY-MM-DD), `time`, `date-time`, `email`, `uri`, `uuid`.
        public var format: String?

        /// Creates rules; the defaults admit any string.
        public init(minLength: Int = 0, maxLength: Int? = nil, pattern: String? = nil, format: String? = nil) {
            self.minLength = minLength
            self.maxLength = maxLength
            self.pattern = pattern
            self.format = format
        }
    }

    /// What a number must be.
    public struct NumberRules: Sendable, Hashable {
        /// Whole numbers only.
        public var integer: Bool
        /// The smallest value allowed.
        public var minimum: Double?
        /// The largest value allowed.
        public var maximum: Double?
        /// Values must be greater than this.
        public var exclusiveMinimum: Double?
        /// Values must be less than this.
        public var exclusiveMaximum: Double?

        /// Creates rules; the defaults admit any number.
        public init(
            integer: Bool = false, minimum: Double? = nil, maximum: Double? = nil,
            exclusiveMinimum: Double? = nil, exclusiveMaximum: Double? = nil
        ) {
            self.integer = integer
            self.minimum = minimum
            self.maximum = maximum
            self.exclusiveMinimum = exclusiveMinimum
            self.exclusiveMaximum = exclusiveMaximum
        }
    }

    /// What values the schema admits.
    public var kind: Kind
    /// What the value means, for the model (and for people reading the schema).
    public var description: String?

    /// Creates a schema.
    public init(_ kind: Kind, description: String? = nil) {
        self.kind = kind
        self.description = description
    }

    // MARK: Building in code

    /// An object with `properties` in order.
    public static func object(_ properties: [Property], description: String? = nil) -> JSONSchema {
        JSONSchema(.object(properties), description: description)
    }

    /// An array of `items`.
    public static func array(of items: JSONSchema, minItems: Int = 0, maxItems: Int? = nil, description: String? = nil) -> JSONSchema {
        JSONSchema(.array(items: items, minItems: minItems, maxItems: maxItems), description: description)
    }

    /// A string.
    public static func string(
        minLength: Int = 0, maxLength: Int? = nil, pattern: String? = nil, format: String? = nil,
        description: String? = nil
    ) -> JSONSchema {
        JSONSchema(
            .string(StringRules(minLength: minLength, maxLength: maxLength, pattern: pattern, format: format)),
            description: description)
    }

    /// A whole number between `minimum` and `maximum` (inclusive).
    public static func integer(minimum: Int? = nil, maximum: Int? = nil, description: String? = nil) -> JSONSchema {
        JSONSchema(
            .number(NumberRules(integer: true, minimum: minimum.map(Double.init), maximum: maximum.map(Double.init))),
            description: description)
    }

    /// A number between `minimum` and `maximum` (inclusive).
    public static func number(minimum: Double? = nil, maximum: Double? = nil, description: String? = nil) -> JSONSchema {
        JSONSchema(.number(NumberRules(minimum: minimum, maximum: maximum)), description: description)
    }

    /// `true` or `false`.
    public static func boolean(description: String? = nil) -> JSONSchema {
        JSONSchema(.boolean, description: description)
    }

    /// One of these strings.
    public static func oneOf(_ values: [String], description: String? = nil) -> JSONSchema {
        JSONSchema(.enumeration(values.map(JSONValue.string)), description: description)
    }

    /// This schema, or `null`.
    public var orNull: JSONSchema {
        JSONSchema(.anyOf([self, JSONSchema(.null)]), description: description)
    }
}

extension JSONSchema.Property {
    /// A property that may be left out.
    public static func optional(_ name: String, _ schema: JSONSchema) -> JSONSchema.Property {
        JSONSchema.Property(name, schema, required: false)
    }
}
