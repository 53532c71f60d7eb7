import ParleyCore

/// One connected MCP server, as Parley uses it: the tools it lists, and calls to them. The
/// official SDK's client is one (``MCPClientSession``); tests use their own.
public protocol MCPToolSession: Sendable {
    /// The server's name in the configuration.
    var server: String { get }
    /// The tools the server offers.
    func listTools() async throws -> [MCPToolDescription]
    /// Calls the tool `name` with `arguments` (a JSON object).
    func callTool(named name: String, arguments: JSONValue) async throws -> MCPToolOutput
    /// Ends the connection (and the server's process, for a stdio server).
    func close() async
}

/// A tool as an MCP server lists it.
public struct MCPToolDescription: Sendable, Equatable {
    /// The tool's name on its server.
    public var name: String
    /// What it does, for the model.
    public var description: String?
    /// Its arguments' JSON schema (an object schema).
    public var inputSchema: JSONValue

    /// Creates a description.
    public init(name: String, description: String?, inputSchema: JSONValue) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
    }
}

/// What a tool call gave: its content as text for the model, and whether the tool reported an
/// error.
public struct MCPToolOutput: Sendable, Equatable {
    /// The result's text.
    public var text: String
    /// Whether the tool said the call failed.
    public var isError: Bool

    /// Creates an output.
    public init(text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }
}
