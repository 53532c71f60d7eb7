import ArgumentParser
import Foundation
import Logging
import ParleyCore
#if Server
import ParleyMCP
#endif
import ParleyRuntime

/// `--mcp CONFIG`: the MCP servers whose tools the assistant may call beside the built-ins.
struct MCPOptions: ParsableArguments {
    @Option(
        name: .customLong("mcp"),
        help: ArgumentHelp(
            "A JSON file of MCP servers whose tools the model may call, in the usual {\"mcpServers\": {NAME: {\"command\", \"args\", \"env\"} or {\"url\", \"headers\"}}} shape.",
            valueName: "config"))
    var configuration: String?

    #if Server
    /// The servers of the file, connected (a server that fails is a warning and its tools are
    /// left out); `nil` without `--mcp`.
    /// - Throws: ``MCPConfigurationError`` when the file cannot be read or is not a configuration.
    func connect() async throws -> MCPToolHub? {
        guard let configuration else { return nil }
        let servers = try MCPServerConfiguration(contentsOf: configuration)
        return await MCPToolHub.connect(servers, logger: Logger(label: "parley.mcp"))
    }
    #else
    /// `nil`: a build without the "Server" trait (scripts/demo's) has no MCP client.
    /// - Throws: `ValidationError` saying how to build one that has it, when `--mcp` is given.
    func connect() async throws -> MCPToolHub? {
        guard configuration == nil else {
            throw ValidationError(
                "--mcp needs the MCP client, which this build of parley leaves out (it was built without the \"Server\" trait, as scripts/demo does): build it with `swift build --product parley`."
            )
        }
        return nil
    }
    #endif
}

#if Server
extension MCPToolHub {
    /// The servers' tools for a runtime: under their own names unless a built-in has it.
    var runtimeTools: [Tool] { tools(avoiding: Set(BuiltInTools.names)) }
}
#else
/// Where ParleyMCP's hub would be in a build without the "Server" trait: no value of it exists,
/// so the commands' `hub?` is always `nil` there.
enum MCPToolHub {
    var runtimeTools: [Tool] { switch self {} }
    func close() async { switch self {} }
}
#endif

#if Server

/// `parley mcp`: the built-in tools as an MCP server over standard input and output.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the built-in tools (materials search, assignments, date and time) as an MCP server over standard input and output.",
        discussion: """
            Add it to any MCP client as a stdio server: {"mcpServers": {"parley": {"command": "parley", "args": ["mcp"]}}}. \
            The tools read this machine's Parley data (PARLEY_HOME, or --database). Standard output carries the protocol \
            only; warnings go to standard error. The server ends when the client closes its standard input.
            """)

    @Option(help: "The SQLite conversation database whose materials and assignments the tools read (default: parley.sqlite in the data directory).")
    var database: String?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        common.bootstrapLogging()
        do {
            let runtime = try await common.runtime(database: database)
            let toolbox = try await runtime.toolbox(owner: .local, warn: false)
            try await MCPToolServer(toolbox: toolbox, instructions: "The user's own study materials, assignments, and the date and time.")
                .serveStandardIO()
        } catch {
            throw fail(error)
        }
    }
}
#endif
