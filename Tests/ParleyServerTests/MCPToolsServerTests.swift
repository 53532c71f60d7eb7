import Foundation
import ParleyCore
import ParleyMCP
import ParleyRuntime
import ParleyTesting
import Testing

/// An MCP server's tools offered by the HTTP faces like the built-ins: `parley mcp` as the real
/// MCP server process, its tools in the server's runtime (as `parley serve --mcp` puts them).
@Suite("MCP tools on the server")
struct MCPToolsServerTests {
    /// A server whose model is `model` and whose runtime offers the tools of a `parley mcp`
    /// process (named "other": its tools are offered as other_…).
    static func withServer(_ model: ScriptedToolModel, _ body: (TestServer) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mcp-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let entry = MCPServerEntry(
            name: "other",
            transport: .stdio(
                command: ServeProcess.executable.path, arguments: ["mcp", "--database", home.appendingPathComponent("parley.sqlite").path],
                environment: ["PARLEY_HOME": home.path], directory: nil))
        let hub = await MCPToolHub.connect(MCPServerConfiguration(servers: [entry]), timeout: .seconds(60))
        let tools = hub.tools(avoiding: Set(BuiltInTools.names))
        #expect(tools.contains { $0.definition.name == "other_current_date_time" })
        let catalog = ProviderCatalog(
            entries: TestServer.scriptedCatalog().entries.map { entry in
                guard entry.capability == .languageModel else { return entry }
                return ProviderEntry(capability: .languageModel, name: "local", placement: .onDevice, remedy: "none", factory: .languageModel { _ in model })
            })
        let server = try await TestServer.start(catalog: catalog, tools: tools)
        defer { server.stop() }
        try await body(server)
        await hub.close()
    }

    static let call = ToolCall(id: "call_mcp", name: "other_current_date_time", arguments: #"{"place":"Tokyo"}"#)

    @Test("chat completions and Responses with parley.builtin_tools: the model's call to the MCP tool runs in the MCP process, and the client gets the answer")
    func chatAndResponses() async throws {
        let model = ScriptedToolModel(turns: [.calls([Self.call]), .text(["It is late in Tokyo."]), .calls([Self.call]), .text(["Still late."])])
        try await Self.withServer(model) { server in
            let question = "Ask the other assistant for the hour over there."
            let chat = try await server.post(
                "/v1/chat/completions",
                json: [
                    "messages": [["role": "user", "content": question]],
                    "parley": ["builtin_tools": true],
                ])
            #expect(chat.status == 200, "\(chat.text)")
            let message = (chat.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any]
            #expect(message?["content"] as? String == "It is late in Tokyo.")
            var requests = await model.requests
            #expect(requests.first?.tools.map(\.name) == BuiltInTools.names + BuiltInTools.names.map { "other_\($0)" })
            #expect(requests.last?.messages.last?.role == .tool)
            #expect(requests.last?.messages.last?.text.hasPrefix("In Tokyo it is ") == true, "\(requests.last?.messages.last?.text ?? "")")

            let response = try await server.post("/v1/responses", json: ["input": question, "store": false, "parley": ["builtin_tools": true]])
            #expect(response.status == 200, "\(response.text)")
            #expect(response.text.contains("Still late."), "\(response.text)")
            #expect(!response.text.contains("function_call\""), "the server's own call must not come back: \(response.text)")
            requests = await model.requests
            #expect(requests.count == 4)
            #expect(requests.last?.messages.last?.text.hasPrefix("In Tokyo it is ") == true, "\(requests.last?.messages.last?.text ?? "")")
        }
    }

    @Test("realtime: the MCP server's tools are offered like the built-ins; the model's call runs in the MCP process and response.done lists it")
    func realtime() async throws {
        let model = ScriptedToolModel(turns: [.calls([Self.call]), .text(["It is late in Tokyo."])])
        try await Self.withServer(model) { server in
            try await RealtimeTestClient.with(server) { client in
                _ = try await client.next("session.created")
                try await client.send([
                    "type": "conversation.item.create",
                    "item": [
                        "type": "message", "role": "user", "content": [["type": "input_text", "text": "Ask the other assistant for the hour over there."]],
                    ],
                ])
                try await client.send(["type": "response.create"])
                let done = try await client.next("response.done")
                let response = try #require(done["response"] as? [String: Any])
                #expect(response["status"] as? String == "completed")
                let ran = try #require((response["parley"] as? [String: Any])?["tools"] as? [[String: Any]])
                #expect(ran.first?["name"] as? String == "other_current_date_time" && ran.first?["is_error"] as? Bool == false)
                #expect((ran.first?["output"] as? String)?.hasPrefix("In Tokyo it is ") == true, "\(ran)")
                let output = response["output"] as? [[String: Any]] ?? []
                #expect(!output.contains { $0["type"] as? String == "function_call" })
            }
        }
        let requests = await model.requests
        #expect(requests.first?.tools.map(\.name) == BuiltInTools.names + BuiltInTools.names.map { "other_\($0)" })
    }
}
