import Foundation
import ParleyCore
import ParleyRuntime
import ParleyServer
import ParleyStore
import ParleyTesting
import Testing

/// The server's built-in tools (the user's materials, assignments, the date): asked for in a
/// chat completion with `parley.builtin_tools`, on by default in realtime sessions, run by the
/// server, and shown to the page in `response.done`.
@Suite("Built-in tools on the server")
struct BuiltinToolsTests {
    static let search = ToolCall(id: "call_1", name: "search_materials", arguments: #"{"query":"field trip"}"#)

    /// A server whose model is `model`, with a material about the field trip saved.
    static func server(_ model: ScriptedToolModel, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let catalog = ProviderCatalog(
            entries: TestServer.scriptedCatalog().entries.map { entry in
                guard entry.capability == .languageModel else { return entry }
                return ProviderEntry(capability: .languageModel, name: "local", placement: .onDevice, remedy: "none", factory: .languageModel { _ in model })
            })
        let server = try await TestServer.start(catalog: catalog, configure: configure)
        let store = try await server.runtime.store()
        try await store.addMaterial(
            NewMaterial(
                title: "Class notes", kind: "text", source: "notes.md",
                text: "The field trip to the science museum is on Friday. Bring a packed lunch.",
                pageCount: 1, readBy: "text"), owner: .local)
        return server
    }

    @Test("a chat completion that asks for them: the server runs the model's search, and the client gets only the answer")
    func chatCompletion() async throws {
        // "my notes" is a cue: the server searches at once; the model's one round answers.
        let model = ScriptedToolModel(turns: [.text(["The trip is on Friday."])])
        let server = try await Self.server(model)
        defer { server.stop() }
        let body: [String: Any] = [
            "messages": [["role": "user", "content": "What do my notes say about the field trip?"]],
            "parley": ["builtin_tools": true],
        ]
        let reply = try await server.post("/v1/chat/completions", json: body)
        #expect(reply.status == 200, "\(reply.text)")
        let choice = try #require((reply.json?["choices"] as? [[String: Any]])?.first)
        #expect(choice["finish_reason"] as? String == "stop")
        let message = try #require(choice["message"] as? [String: Any])
        #expect(message["content"] as? String == "The trip is on Friday.")
        #expect(message["tool_calls"] == nil || (message["tool_calls"] as? [Any])?.isEmpty == true)
        // The model saw the tools and the search's result from the notes, and answered in words.
        let requests = await model.requests
        #expect(requests.count == 1)
        #expect(requests.first?.tools.map(\.name) == BuiltInTools.names)
        #expect(requests.first?.toolChoice == ToolChoice.none)
        let call = try #require(requests.first?.messages.dropLast().last?.toolCalls.first)
        #expect(call.name == "search_materials" && call.arguments == #"{"query":"field trip"}"#)
        let result = try #require(requests.first?.messages.last)
        #expect(result.role == .tool && result.toolCallID == call.id)
        #expect(result.text.contains("science museum is on Friday"), "\(result.text)")

        // A question no cue knows goes to the model as asked, free to call or not.
        let asked = try await server.post(
            "/v1/chat/completions",
            json: [
                "messages": [["role": "user", "content": "Where is the trip going?"]],
                "parley": ["builtin_tools": true],
            ])
        #expect(asked.status == 200)
        let second = await model.requests.last
        #expect(second?.toolChoice == .auto && second?.messages.last?.role == .user)
    }

    @Test("streamed, with a tool of the client's: the built-in runs, the client's call comes back for the client")
    func streamedWithClientTool() async throws {
        let play = ToolCall(id: "call_2", name: "play_song", arguments: #"{"title":"Yellow"}"#)
        let model = ScriptedToolModel(turns: [.calls([play])])
        let server = try await Self.server(model)
        defer { server.stop() }
        let tool: [String: Any] = [
            "type": "function",
            "function": [
                "name": "play_song",
                "parameters": [
                    "type": "object", "properties": ["title": ["type": "string"]], "required": ["title"],
                ],
            ],
        ]
        let body: [String: Any] = [
            "messages": [["role": "user", "content": "Play the song from my notes."]], "stream": true,
            "tools": [tool], "parley": ["builtin_tools": true],
        ]
        let reply = try await server.post("/v1/chat/completions", json: body)
        #expect(reply.status == 200)
        let chunks = reply.text.split(separator: "\n").filter { $0.hasPrefix("data: {") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any] }
        let deltas = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any] }
        let calls = deltas.compactMap { $0["tool_calls"] as? [[String: Any]] }.flatMap { $0 }
        #expect(calls.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } == ["play_song"])
        let finishes = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String }
        #expect(finishes == ["tool_calls"])
        // The search ran before the model's one round (a cue), whose call is the client's.
        let requests = await model.requests
        #expect(requests.count == 1)
        #expect(requests.first?.messages.last?.toolName == "search_materials")
    }

    @Test("refused clearly where they cannot be had: a server that turned them off, or with a JSON schema")
    func refused() async throws {
        let model = ScriptedToolModel(turns: [.text(["Hi."])])
        let off = try await Self.server(model) { $0.builtinTools = false }
        defer { off.stop() }
        let body: [String: Any] = ["messages": [["role": "user", "content": "Hi"]], "parley": ["builtin_tools": true]]
        let refused = try await off.post("/v1/chat/completions", json: body)
        #expect(refused.status == 400)
        #expect((refused.json?["error"] as? [String: Any])?["param"] as? String == "parley.builtin_tools")
        let plain = try await off.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "Hi"]]])
        #expect(plain.status == 200)
        #expect(await model.requests.last?.tools.isEmpty == true)
    }

    @Test("realtime: on by default; the server runs them and response.done lists what ran; a session can turn them off")
    func realtime() async throws {
        let model = ScriptedToolModel(turns: [.text(["The trip is on Friday."]), .text(["Hello."])])
        let server = try await Self.server(model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            let created = try await client.next("session.created")
            let session = created["session"] as? [String: Any]
            #expect((session?["parley"] as? [String: Any])?["builtin_tools"] as? Bool == true)
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user", "content": [["type": "input_text", "text": "What do my notes say about the field trip?"]],
                ],
            ])
            try await client.send(["type": "response.create"])
            let done = try await client.next("response.done")
            let response = try #require(done["response"] as? [String: Any])
            #expect(response["status"] as? String == "completed")
            let ran = try #require((response["parley"] as? [String: Any])?["tools"] as? [[String: Any]])
            #expect(ran.count == 1)
            #expect(ran.first?["name"] as? String == "search_materials" && ran.first?["is_error"] as? Bool == false)
            #expect((ran.first?["output"] as? String)?.contains("science museum") == true)
            // The function call was the server's: no function_call item for the client.
            let output = response["output"] as? [[String: Any]] ?? []
            #expect(!output.contains { $0["type"] as? String == "function_call" })

            try await client.send(["type": "session.update", "session": ["type": "realtime", "parley": ["builtin_tools": false]]])
            let updated = try await client.next("session.updated")
            #expect(((updated["session"] as? [String: Any])?["parley"] as? [String: Any])?["builtin_tools"] as? Bool == false)
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user", "content": [["type": "input_text", "text": "Hello"]],
                ],
            ])
            try await client.send(["type": "response.create"])
            _ = try await client.next("response.done")
        }
        let requests = await model.requests
        #expect(requests.count == 2)
        #expect(requests.first?.tools.map(\.name) == BuiltInTools.names)
        #expect(requests.first?.messages.last?.role == .tool)
        #expect(requests.last?.tools.isEmpty == true)
    }
}
