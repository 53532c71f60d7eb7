import Foundation
import Logging
import ParleyCore

/// The MCP servers of a configuration, connected, and their tools as Parley ``Tool``s that any
/// toolbox can hold: a model's call to one is sent to its server.
///
/// A server that cannot be started, does not complete the handshake or cannot list its tools
/// is a warning, and its tools are left out; the others are offered.
///
/// ```swift
/// let hub = await MCPToolHub.connect(try MCPServerConfiguration(contentsOf: "mcp.json"))
/// var options = RuntimeOptions()
/// options.tools = hub.tools(avoiding: Set(BuiltInTools.names))
/// ```
public struct MCPToolHub: Sendable {
    /// One connected server and what it listed.
    public struct Server: Sendable {
        /// The connection.
        public var session: any MCPToolSession
        /// Its tools, as listed when connected.
        public var tools: [MCPToolDescription]
        /// The longest one call may take.
        public var timeout: Duration
        /// Takes the server's secrets out of an error's words (see ``MCPServerEntry/redacting(_:)``).
        var redact: @Sendable (String) -> String = { $0 }

        /// A server connected elsewhere, with what it listed.
        public init(session: any MCPToolSession, tools: [MCPToolDescription], timeout: Duration = MCPServerEntry.defaultTimeout) {
            self.session = session
            self.tools = tools
            self.timeout = timeout
        }

        init(session: any MCPToolSession, tools: [MCPToolDescription], timeout: Duration, redact: @escaping @Sendable (String) -> String) {
            self.init(session: session, tools: tools, timeout: timeout)
            self.redact = redact
        }
    }

    /// The connected servers, by name.
    public let servers: [Server]
    private let logger: Logger

    /// A hub over servers already connected.
    public init(servers: [Server], logger: Logger = Logger(label: "parley.mcp")) {
        self.servers = servers.sorted { $0.session.server < $1.session.server }
        self.logger = logger
    }

    /// Connects every server of `configuration` at once, each within `timeout` for the handshake
    /// and the list of its tools; `connect` opens one (the SDK's client unless a test says
    /// otherwise). Failures are logged as warnings, never thrown.
    public static func connect(
        _ configuration: MCPServerConfiguration, timeout: Duration = .seconds(15), logger: Logger = Logger(label: "parley.mcp"),
        connect: @escaping @Sendable (MCPServerEntry, Duration, Logger) async throws -> any MCPToolSession = { entry, timeout, logger in
            try await MCPClientSession.connect(entry, timeout: timeout, logger: logger)
        }
    ) async -> MCPToolHub {
        for problem in configuration.problems { logger.warning("\(problem)") }
        let servers = await withTaskGroup(of: Server?.self) { group in
            for entry in configuration.servers {
                group.addTask {
                    do {
                        let session = try await connect(entry, timeout, logger)
                        do {
                            guard let tools = try await firstAnswer(within: timeout, { try await session.listTools() }) else {
                                await session.close()
                                throw MCPConnectionError.timedOut(server: entry.name, seconds: Int(timeout.components.seconds))
                            }
                            logger.notice(
                                "MCP server \(entry.name): \(tools.count) tool\(tools.count == 1 ? "" : "s") (\(tools.map(\.name).joined(separator: ", ")))")
                            return Server(session: session, tools: tools, timeout: entry.timeout, redact: { entry.redacting($0) })
                        } catch let error as MCPConnectionError {
                            throw error
                        } catch {
                            await session.close()
                            throw MCPConnectionError.handshakeFailed(server: entry.name, reason: entry.redacting("its tools could not be listed (\(error))"))
                        }
                    } catch {
                        logger.warning("\(entry.redacting(String(describing: error))) Its tools are left out.")
                        return nil
                    }
                }
            }
            var connected: [Server] = []
            for await server in group { if let server { connected.append(server) } }
            return connected
        }
        return MCPToolHub(servers: servers, logger: logger)
    }

    /// The servers' tools as Parley tools, in the servers' order and each server's. A tool
    /// keeps its own name unless `reserved` (the built-ins' names, say) or an earlier server
    /// has it, or it is not a valid function name: then it is offered as `SERVER_TOOL`. One
    /// that still cannot be named, or whose schema is not an object's, is left out with a
    /// warning.
    public func tools(avoiding reserved: Set<String> = []) -> [Tool] {
        var taken = reserved
        var tools: [Tool] = []
        for server in servers {
            for listed in server.tools {
                var name = listed.name
                if taken.contains(name) || !ToolDefinition.isValidName(name) {
                    name = Self.qualified(server: server.session.server, tool: listed.name)
                }
                guard ToolDefinition.isValidName(name), !taken.contains(name) else {
                    logger.warning(
                        "MCP server \(server.session.server): its tool \"\(listed.name.prefix(80))\" is left out: its name is taken or not a valid function name."
                    )
                    continue
                }
                let definition: ToolDefinition
                do {
                    definition = try ToolDefinition(name: name, description: listed.description, parameters: listed.inputSchema)
                } catch {
                    logger.warning("MCP server \(server.session.server): its tool \"\(listed.name)\" is left out: \(error)")
                    continue
                }
                taken.insert(name)
                tools.append(Self.tool(definition, calling: listed.name, on: server.session, timeout: server.timeout, redact: server.redact))
            }
        }
        return tools
    }

    /// Ends every connection (and the servers' processes).
    public func close() async {
        await withTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { await server.session.close() } }
        }
    }

    /// `SERVER_TOOL` with every character a function name cannot hold as `_`, at most 64.
    static func qualified(server: String, tool: String) -> String {
        let joined = "\(server)_\(tool)"
        let cleaned = String(
            joined.unicodeScalars.map { scalar -> Character in
                let ok = (scalar.value < 128) && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-")
                return ok ? Character(scalar) : "_"
            })
        return String(cleaned.prefix(64))
    }

    /// A Parley tool whose calls go to `name` on `session`: a result the server marks as an
    /// error, and a server that fails, are error results for the model.
    static func tool(
        _ definition: ToolDefinition, calling name: String, on session: any MCPToolSession, timeout: Duration,
        redact: @escaping @Sendable (String) -> String = { $0 }
    ) -> Tool {
        Tool(definition: definition, timeout: timeout) { arguments in
            let value: JSONValue
            do {
                value = try JSONValue(parsing: arguments.isEmpty ? "{}" : arguments)
            } catch {
                throw ToolFailure("the arguments are not JSON (\(error))")
            }
            let output: MCPToolOutput
            do {
                output = try await session.callTool(named: name, arguments: value)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ToolFailure(redact("the MCP server \"\(session.server)\" did not answer: \(error)"))
            }
            if output.isError { throw ToolFailure(output.text) }
            return output.text
        }
    }
}
