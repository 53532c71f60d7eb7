import Foundation
import ParleyCore
@testable import ParleyMCP
import Testing

@Suite("MCP over Streamable HTTP")
struct StreamableHTTPTests {
    @Test("an event stream's events: data lines joined, comments and other fields skipped, CRLF taken")
    func readsEvents() {
        let body = "event: message\r\ndata: {\"a\":1}\r\n\r\n: a comment\nid: 7\ndata: {\"b\":\ndata: 2}\n\ndata:{\"c\":3}"
        let events = StreamableHTTPTransport.events(Data(body.utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(events == [#"{"a":1}"#, "{\"b\":\n2}", #"{"c":3}"#])
    }

    /// A Python SDK server (scripts/mcp_http_server.py) answering with an event stream or JSON.
    @Test(
        "a real server's tools listed and called, whether it answers with an event stream or JSON",
        .enabled(if: ThirdPartyClientTests.hasPythonSDK, "the project's venv has no MCP Python SDK: run scripts/setup"),
        arguments: ["sse", "json"])
    func pythonServer(answers: String) async throws {
        let server = Process()
        server.executableURL = ThirdPartyClientTests.venvPython
        server.arguments = [ThirdPartyClientTests.root.appendingPathComponent("scripts/mcp_http_server.py").path, answers]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // uvicorn's graceful stop waits for its sessions: the test ends it at once.
        defer { kill(server.processIdentifier, SIGKILL) }
        let first = await Task.detached { output.fileHandleForReading.availableData }.value
        let port = try #require(String(decoding: first, as: UTF8.self).split(separator: "\n").first?.split(separator: " ").last.flatMap { Int($0) })
        let entry = MCPServerEntry(
            name: "weather",
            transport: .http(
                url: URL(string: "http://127.0.0.1:\(port)/mcp")!,
                headers: ["Authorization": "Bearer test-token"]))
        // The server takes a moment to listen.
        var session: MCPClientSession?
        let deadline = ContinuousClock.now + .seconds(60)
        while session == nil, ContinuousClock.now < deadline {
            session = try? await MCPClientSession.connect(entry, timeout: .seconds(10))
            if session == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        let connected = try #require(session)
        let tools = try await connected.listTools()
        #expect(tools.map(\.name) == ["get_weather"])
        #expect(tools.first?.inputSchema["required"] == .array([.string("city")]))
        let weather = try await connected.callTool(named: "get_weather", arguments: .object(["city": .string("Lyon")]))
        #expect(!weather.isError && weather.text.contains("sunny in Lyon"), "\(weather.text)")
        await connected.close()
    }
}
