/// A JSON schema that a reply must follow (structured output).
public struct ResponseSchema: Sendable, Equatable {
    /// A short name for the schema (OpenAI requires one; Anthropic names its tool after it):
    /// letters, digits, `_` and `-`, at most 64 characters, as both APIs accept.
    public var name: String
    /// The JSON schema, members in the order written.
    public var schema: JSONValue
    /// Whether the provider must follow the schema exactly, where it supports that.
    public var strict: Bool

    /// Creates a schema; other characters in `name` become `_` ("response" for an empty name).
    public init(name: String, schema: JSONValue, strict: Bool = true) {
        let kept = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" }.prefix(64))
        self.name = kept.isEmpty ? "response" : kept
        self.schema = schema
        self.strict = strict
    }
}
