import Foundation
import Logging
import ParleyCore
import ParleyMCP
import ParleyRuntime
import ParleyTesting
import Testing

/// `parley mcp` as a real MCP server process, reached by Parley's own MCP client.
enum ParleyMCPProcess {
    /// The `parley` binary next to the test bundle in the build directory.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On macOS the test binary sits inside a .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("parley")
    }

    /// A new empty data directory (remove it afterwards).
    static func home() throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mcp-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return home
    }

    /// The configuration entry that starts `parley mcp` on `home`'s data.
    static func entry(named name: String = "parley", home: URL) -> MCPServerEntry {
        MCPServerEntry(
            name: name,
            transport: .stdio(
                command: executable.path, arguments: ["mcp", "--database", home.appendingPathComponent("parley.sqlite").path],
                environment: ["PARLEY_HOME": home.path], directory: nil))
    }
}

@Suite("MCP round trip: Parley's client and `parley mcp` as a real process")
struct MCPRoundTripTests {
    @Test("the client lists the built-ins parley mcp serves and calls them: a result, and a schema error as an error result")
    func listsAndCalls() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let session = try await MCPClientSession.connect(ParleyMCPProcess.entry(home: home), timeout: .seconds(60))
        let tools = try await session.listTools()
        #expect(tools.map(\.name) == BuiltInTools.names)
        #expect(tools.first { $0.name == "current_date_time" }?.inputSchema["properties"]?["place"]?["type"] == .string("string"))

        let tokyo = try await session.callTool(named: "current_date_time", arguments: .object(["place": .string("Tokyo")]))
        #expect(!tokyo.isError)
        #expect(tokyo.text.hasPrefix("In Tokyo it is ") && tokyo.text.contains("Asia/Tokyo"), "\(tokyo.text)")

        let due = try await session.callTool(named: "upcoming_assignments", arguments: .object(["days": .number(3)]))
        #expect(!due.isError && due.text.contains("Nothing is due in the next 3 days."), "\(due.text)")

        let wrong = try await session.callTool(named: "current_date_time", arguments: .object(["place": .number(5)]))
        #expect(wrong.isError && wrong.text.contains("expected a string"), "\(wrong.text)")

        let unknown = try await session.callTool(named: "launch_rocket", arguments: .object([:]))
        #expect(unknown.isError && unknown.text.contains("There is no tool named \"launch_rocket\""), "\(unknown.text)")

        await session.close()
        // A server that has exited is an error for the call, not a write to a closed pipe.
        await #expect(throws: MCPConnectionError.self) {
            try await session.callTool(named: "current_date_time", arguments: .object([:]))
        }
    }

    @Test("a model's call in the runtime's toolbox reaches the MCP process; its tools sit beside the built-ins, renamed where a built-in has the name")
    func runtimeCallReachesProcess() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let logs = CapturedLogs()
        let configuration = MCPServerConfiguration(servers: [ParleyMCPProcess.entry(home: home)])
        let hub = await MCPToolHub.connect(configuration, timeout: .seconds(60), logger: logs.logger())
        #expect(logs.messages(at: .warning).isEmpty, "\(logs.messages(at: .warning))")
        let tools = hub.tools(avoiding: Set(BuiltInTools.names))
        #expect(tools.map(\.definition.name) == BuiltInTools.names.map { "parley_\($0)" })

        let settings = RuntimeSettings(values: ["PARLEY_HOME": home.path, "PARLEY_LLM_MODEL": "smollm2-135m"])
        let runtime = Runtime(
            settings: settings,
            options: RuntimeOptions(
                database: home.appendingPathComponent("runtime.sqlite"),
                paths: ParleyPaths(home: home), tools: tools),
            clock: ContinuousClock())
        let box = try await runtime.toolbox(owner: .local, warn: false)
        #expect(box.definitions.map(\.name) == BuiltInTools.names + BuiltInTools.names.map { "parley_\($0)" })

        // The model (a script: the orchestration is under test) calls the MCP server's tool.
        let call = ToolCall(id: "call_mcp", name: "parley_current_date_time", arguments: #"{"place":"Tokyo"}"#)
        let model = ScriptedToolModel(turns: [.calls([call]), .text(["It is late in Tokyo."])])
        let outcome = try await ToolLoop(llm: model, toolbox: box)
            .run(ChatRequest(messages: [.user("Ask the other assistant for the hour over there.")]), clock: ContinuousClock())
        #expect(outcome.reply.text == "It is late in Tokyo.")
        let result = try #require(outcome.results.first)
        #expect(result.call.name == "parley_current_date_time")
        #expect(!result.isError && result.content.hasPrefix("In Tokyo it is "), "\(result.content)")
        // The model saw the MCP tool among its tools, and the process's answer as the result.
        let requests = await model.requests
        #expect(requests.first?.tools.contains { $0.name == "parley_current_date_time" } == true)
        #expect(requests.last?.messages.last?.text == result.content)
        await hub.close()
    }

    @Test("servers that are missing, exit at once or never answer are warnings, and only the working server's tools are offered")
    func deadServersAreWarnings() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let logs = CapturedLogs()
        let configuration = MCPServerConfiguration(servers: [
            ParleyMCPProcess.entry(named: "alive", home: home),
            MCPServerEntry(name: "missing", transport: .stdio(command: "no-such-mcp-server-\(UUID())", arguments: [], environment: [:], directory: nil)),
            MCPServerEntry(
                name: "exits",
                transport: .stdio(
                    command: "/bin/sh", arguments: ["-c", "echo \"no config found for $SECRET_TOKEN\" >&2; exit 3"],
                    environment: ["SECRET_TOKEN": "hunter2"], directory: nil)),
            MCPServerEntry(name: "silent", transport: .stdio(command: "/bin/sleep", arguments: ["30"], environment: [:], directory: nil)),
        ])
        let hub = await MCPToolHub.connect(configuration, timeout: .seconds(10), logger: logs.logger())
        #expect(hub.servers.map(\.session.server) == ["alive"])
        #expect(hub.tools().map(\.definition.name) == BuiltInTools.names)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.contains("\"missing\"") && $0.contains("was not found") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("\"exits\"") && $0.contains("status 3") && $0.contains("no config found for …") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("\"silent\"") && $0.contains("did not answer within 10 s") }, "\(warnings)")
        #expect(warnings.allSatisfy { $0.contains("left out") })
        #expect(!logs.records.contains { $0.message.contains("hunter2") })
        await hub.close()
    }
}
