import Foundation

/// A Swift type a model can be asked to produce: it knows its JSON schema and decodes from
/// the JSON that follows it.
///
/// ```swift
/// struct Summary: StructuredOutput {
///     var title: String
///     var keyPoints: [String]
///     static let schema = JSONSchema.object([
///         .init("title", .string(maxLength: 80)),
///         .init("keyPoints", .array(of: .string(), minItems: 1, maxItems: 5)),
///     ])
/// }
/// ```
public protocol StructuredOutput: Codable, Sendable {
    /// The schema every value of the type follows.
    static var schema: JSONSchema { get }
    /// A short name for the schema (providers label structured replies with it).
    static var schemaName: String { get }
}

extension StructuredOutput {
    public static var schemaName: String {
        String(describing: Self.self).lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// Decodes a value that follows ``schema``.
    public init(json: JSONValue) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(json.text.utf8))
    }

    /// The value as JSON (members in the schema's order where Foundation keeps it).
    public var json: JSONValue {
        get throws { try JSONValue(parsing: JSONEncoder().encode(self)) }
    }
}
