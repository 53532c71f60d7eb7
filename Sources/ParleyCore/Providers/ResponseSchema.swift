/// A JSON schema that a reply must follow (structured output).
public struct ResponseSchema: Sendable, Equatable {
    /// A short name for the schema (OpenAI requires one; Anthropic names its tool after it).
    public var name: String
    /// The JSON schema, members in the order written.
    public var schema: JSONValue
    /// Whether the provider must follow the schema exactly, where it supports that.
    public var strict: Bool

    /// Creates a schema.
    public init(name: String, schema: JSONValue, strict: Bool = true) {
        self.name = name
        self.schema = schema
        self.strict = strict
    }
}
