import Foundation
import Logging
import MCP
import ParleyCore
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A connection to one MCP server through the official Swift SDK's client: over the standard
/// input and output of a child process (stdio), or over Streamable HTTP.
public actor MCPClientSession: MCPToolSession {
    /// The server's name in the configuration.
    public nonisolated let server: String
    private let client: Client
    private let child: MCPChildProcess?
    /// Whether ``close()`` was called.
    private var closed = false
    private let logger: Logger

    private init(server: String, client: Client, child: MCPChildProcess?, logger: Logger) {
        self.server = server
        self.client = client
        self.child = child
        self.logger = logger
    }

    /// The name and version Parley gives servers in the handshake.
    static let clientName = "parley"
    static let clientVersion = "1.0.0"

    /// Connects the server `entry` describes: starts its program (stdio) or reaches its URL,
    /// and completes the protocol's handshake within `timeout`.
    /// - Throws: ``MCPConnectionError`` saying why and what to do.
    public static func connect(
        _ entry: MCPServerEntry, timeout: Duration = .seconds(15),
        logger: Logger = Logger(label: "parley.mcp")
    ) async throws(MCPConnectionError) -> MCPClientSession {
        let transport: any Transport
        var child: MCPChildProcess?
        switch entry.transport {
        case .stdio(let command, let arguments, let environment, let directory):
            let started = try MCPChildProcess(
                server: entry.name, command: command, arguments: arguments, environment: environment,
                directory: directory, logger: logger)
            child = started
            transport = StdioTransport(
                input: FileDescriptor(rawValue: started.messagesFromChild),
                output: FileDescriptor(rawValue: started.messagesToChild))
        case .http(let url, let headers):
            transport = StreamableHTTPTransport(endpoint: url, headers: headers, logger: logger)
        }
        let client = Client(name: clientName, version: clientVersion)
        let session = MCPClientSession(server: entry.name, client: client, child: child, logger: logger)
        // A child that exits during the handshake ends it at once (its pending request fails)
        // rather than at the timeout.
        let watcher = child.map { child in
            Task {
                while !Task.isCancelled, await child.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
                if !Task.isCancelled { await client.disconnect() }
            }
        }
        defer { watcher?.cancel() }
        do {
            let answered = try await firstAnswer(within: timeout) {
                try await client.connect(transport: transport)
                return true
            }
            guard answered != nil else {
                await session.close()
                throw MCPConnectionError.timedOut(server: entry.name, seconds: Int(timeout.components.seconds))
            }
        } catch let error as MCPConnectionError {
            throw error
        } catch {
            let reason = await session.failureReason(error)
            await session.close()
            throw .handshakeFailed(server: entry.name, reason: entry.redacting(reason))
        }
        return session
    }

    /// Why the handshake failed, in words: the child's exit and its last line of errors when
    /// it exited, else the SDK's error.
    private func failureReason(_ error: any Error) async -> String {
        if let child {
            // The pipe closes just before the exit is seen.
            for _ in 0..<25 where await child.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
            if let status = await child.exitStatus {
                let words = child.errorTail.lastLine.map { ": \(String($0.prefix(300)))" } ?? ""
                return "it exited with status \(status) before answering\(words)"
            }
        }
        return "\(error)"
    }

    /// The server's tools, every page of them (at most 20 pages).
    /// - Throws: ``MCPConnectionError/serverExited(server:status:)`` when a stdio server has
    ///   exited, or the SDK's error.
    public func listTools() async throws -> [MCPToolDescription] {
        try await ensureRunning()
        var tools: [MCPToolDescription] = []
        var cursor: String?
        // A server that pages forever is cut off after 20 pages.
        for _ in 0..<20 {
            let page = try await client.listTools(cursor: cursor)
            tools += page.tools.map { tool in
                MCPToolDescription(name: tool.name, description: tool.description ?? tool.title, inputSchema: Self.json(tool.inputSchema))
            }
            guard let next = page.nextCursor, !next.isEmpty else { break }
            cursor = next
        }
        return tools
    }

    /// Calls `name` with `arguments`; the result's content as text (an image, audio or a
    /// resource link as a short note), marked as an error when the server says it failed.
    /// - Throws: ``MCPConnectionError/serverExited(server:status:)`` when a stdio server has
    ///   exited, or the SDK's error (an unknown tool, a broken connection).
    public func callTool(named name: String, arguments: JSONValue) async throws -> MCPToolOutput {
        try await ensureRunning()
        let values = Self.value(arguments).objectValue ?? [:]
        let (content, isError) = try await client.callTool(name: name, arguments: values)
        var parts = content.map(Self.text)
        if parts.isEmpty { parts = ["(The tool returned nothing.)"] }
        return MCPToolOutput(text: parts.joined(separator: "\n"), isError: isError ?? false)
    }

    /// Ends the session, and a stdio server's process (see ``MCPChildProcess/stop(grace:)``).
    public func close() async {
        closed = true
        await client.disconnect()
        await child?.stop()
    }

    /// Refuses to write to a stdio server that has exited, or to a session that was closed
    /// (its process may take a moment to exit after it is told to).
    private func ensureRunning() async throws {
        if closed { throw MCPConnectionError.serverExited(server: server, status: await child?.exitStatus) }
        guard let child, await !child.isRunning else { return }
        throw MCPConnectionError.serverExited(server: server, status: await child.exitStatus)
    }

    /// One piece of a tool's result as text for the model.
    static func text(_ content: MCP.Tool.Content) -> String {
        switch content {
        case .text(let text, _, _):
            text
        case .image(_, let mimeType, _, _):
            "[The tool returned an image (\(mimeType)), which is not shown here.]"
        case .audio(_, let mimeType, _, _):
            "[The tool returned audio (\(mimeType)), which is not played here.]"
        case .resource(let resource, _, _):
            resource.text ?? "[The tool returned the resource \(resource.uri)\(resource.mimeType.map { " (\($0))" } ?? "").]"
        case .resourceLink(let uri, let name, _, let description, _, _):
            "[Resource \(name): \(uri)\(description.map { " — \($0)" } ?? "")]"
        }
    }

    /// An SDK value as ParleyCore's JSON (through its JSON text; both are plain JSON).
    static func json(_ value: MCP.Value) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return .object([:])
        }
        return json
    }

    /// ParleyCore's JSON as an SDK value.
    static func value(_ json: JSONValue) -> MCP.Value {
        guard let data = try? JSONEncoder().encode(json), let value = try? JSONDecoder().decode(MCP.Value.self, from: data) else {
            return .null
        }
        return value
    }
}
