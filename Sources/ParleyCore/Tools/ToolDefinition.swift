/// A function the model may call: its name, what it does, and its parameters as a JSON schema.
///
/// The schema is kept as it came (``parameters``, sent to providers unchanged) and read into
/// ParleyCore's typed ``JSONSchema`` (``schema``) for validating arguments and building the
/// on-device model's grammar. The parameters must describe a JSON object, as every provider
/// requires.
public struct ToolDefinition: Sendable, Equatable, Hashable {
    /// The function's name: letters, digits, `_` and `-`, 1 to 64 characters (what OpenAI,
    /// Anthropic and Ollama all accept).
    public let name: String
    /// What the function does and when to call it, for the model.
    public let description: String?
    /// The parameters' JSON schema as written (an object schema).
    public let parameters: JSONValue
    /// The parameters read into a typed schema. A schema using keywords ParleyCore does not
    /// model (`not`, recursion, …) is read as "any object": arguments are then checked to be an
    /// object and nothing more.
    public let schema: JSONSchema
    /// Whether providers that can should follow the schema exactly (OpenAI's `strict`).
    public let strict: Bool?

    /// Creates a definition.
    ///
    /// - Throws: ``ToolDefinitionError`` when the name is not a valid function name or the
    ///   parameters are not an object schema.
    public init(
        name: String, description: String? = nil, parameters: JSONValue = .object(["type": "object", "properties": .object([:])]),
        strict: Bool? = nil
    ) throws(ToolDefinitionError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        guard let members = parameters.object else { throw .parametersNotObject(tool: name) }
        let type = members["type"]
        let declaresObject = type == .string("object") || (type == nil && (members["properties"] != nil || members.isEmpty))
        guard declaresObject else { throw .parametersNotObject(tool: name) }
        self.name = name
        self.description = description
        self.parameters = parameters
        self.strict = strict
        if let read = try? JSONSchema(json: parameters), case .object = read.kind {
            self.schema = read
        } else {
            self.schema = JSONSchema(.object([], additional: true))
        }
    }

    /// Creates a definition from a schema built in code.
    public init(name: String, description: String? = nil, schema: JSONSchema, strict: Bool? = nil) throws(ToolDefinitionError) {
        try self.init(name: name, description: description, parameters: schema.json, strict: strict)
    }

    /// Whether `name` is a valid function name.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
            }
    }

    /// What is wrong with `arguments` (JSON text) for this tool: that it is not JSON, not an
    /// object, or breaks the schema. Empty when the arguments are valid.
    public func problems(with arguments: String) -> [String] {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: arguments.isEmpty ? "{}" : arguments)
        } catch {
            return ["the arguments are not JSON (\(error))"]
        }
        guard value.object != nil else { return ["the arguments must be a JSON object"] }
        return schema.violations(of: value).map(\.description)
    }
}

/// Why a tool definition was refused.
public enum ToolDefinitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name is empty, too long, or has characters other than letters, digits, `_` and `-`.
    case invalidName(String)
    /// The parameters are not a JSON schema of an object.
    case parametersNotObject(tool: String)
    /// Two tools share a name.
    case duplicateName(String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "The tool name \"\(name.prefix(80))\" is not valid: use 1 to 64 letters, digits, underscores or dashes."
        case .parametersNotObject(let tool):
            "The parameters of tool \"\(tool)\" must be a JSON schema of an object ({\"type\": \"object\", \"properties\": {…}})."
        case .duplicateName(let name):
            "Two tools are named \"\(name)\": tool names must be unique."
        }
    }
}

/// Whether and which tools the model may call.
public enum ToolChoice: Sendable, Equatable, Hashable {
    /// The model decides: it may answer in text or call tools.
    case auto
    /// The model must not call tools.
    case none
    /// The model must call at least one tool.
    case required
    /// The model must call this function.
    case function(String)

    /// Whether the model must call a tool (``required`` or a named function).
    public var forcesCall: Bool {
        switch self {
        case .auto, .none: false
        case .required, .function: true
        }
    }
}
