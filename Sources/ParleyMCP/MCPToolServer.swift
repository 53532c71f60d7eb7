import Foundation
import Logging
import MCP
import ParleyCore

/// A toolbox served as an MCP server: a client lists its tools and calls them, each call run
/// by ``ToolBox/run(_:clock:)`` (its schema checked, within its timeout); a failing call is a
/// result marked as an error, as the protocol asks, never a broken connection.
///
/// `parley mcp` serves the built-in tools this way over its standard input and output.
public struct MCPToolServer: Sendable {
    /// The tools served.
    public let toolbox: ToolBox
    /// The name given to clients in the handshake.
    public var name: String
    /// The version given to clients in the handshake.
    public var version: String
    /// Words for the client's model about what the server is for.
    public var instructions: String?
    private let logger: Logger

    /// Creates a server of `toolbox`'s tools.
    public init(
        toolbox: ToolBox, name: String = "parley", version: String = "1.0.0", instructions: String? = nil,
        logger: Logger = Logger(label: "parley.mcp.server")
    ) {
        self.toolbox = toolbox
        self.name = name
        self.version = version
        self.instructions = instructions
        self.logger = logger
    }

    /// Serves over this process's standard input and output until the client closes its end.
    /// Nothing else may write to standard output meanwhile (logs go to standard error).
    public func serveStandardIO() async throws {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        try await serve(StdioTransport())
        #else
        throw MCPConnectionError.unsupportedPlatform(server: name)
        #endif
    }

    /// Serves over `transport` until it ends.
    public func serve(_ transport: any Transport) async throws {
        let server = MCP.Server(
            name: name, version: version, instructions: instructions,
            capabilities: .init(tools: .init(listChanged: false)))
        let toolbox = self.toolbox
        let logger = self.logger
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: toolbox.definitions.map(Self.listed))
        }
        await server.withMethodHandler(CallTool.self) { parameters in
            let arguments = MCPClientSession.json(.object(parameters.arguments ?? [:])).text
            let call = ToolCall(id: ToolCall.newID(), name: parameters.name, arguments: arguments)
            let result = await toolbox.run([call]).first ?? ToolResult(call: call, content: "The call was not run.", isError: true)
            logger.debug("MCP call \(call.name) ran in \(Int(result.milliseconds)) ms\(result.isError ? " (failed)" : "")")
            return CallTool.Result(content: [.text(text: result.content, annotations: nil, _meta: nil)], isError: result.isError)
        }
        try await server.start(transport: transport)
        await server.waitUntilCompleted()
        await server.stop()
    }

    /// A Parley tool as an MCP tool.
    static func listed(_ definition: ToolDefinition) -> MCP.Tool {
        MCP.Tool(name: definition.name, description: definition.description, inputSchema: MCPClientSession.value(definition.parameters))
    }
}
