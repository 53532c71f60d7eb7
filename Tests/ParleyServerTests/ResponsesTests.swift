import Foundation
import ParleyCore
import ParleyRuntime
import ParleyServer
import ParleyStore
import ParleyTesting
import Testing

/// OpenAI's Responses API: made whole or streamed, continued with `previous_response_id` on
/// the caller's threads, read back and deleted, with function tools; bad input refused.
@Suite("Responses API")
struct ResponsesTests {
    static let one = [("authorization", "Bearer key-one"), ("content-type", "application/json")]
    static let two = [("authorization", "Bearer key-two"), ("content-type", "application/json")]

    static func server(_ model: any LanguageModelProvider) async throws -> TestServer {
        let catalog = ProviderCatalog(
            entries: TestServer.scriptedCatalog().entries.map { entry in
                guard entry.capability == .languageModel else { return entry }
                return ProviderEntry(capability: .languageModel, name: "local", placement: .onDevice, remedy: "none", factory: .languageModel { _ in model })
            })
        return try await TestServer.start(settings: ["PARLEY_API_KEYS": "key-one,key-two"], catalog: catalog)
    }

    static func post(_ server: TestServer, _ body: [String: Any], headers: [(String, String)] = one) async throws -> TestServer.Reply {
        try await server.send(.POST, "/v1/responses", headers: headers, body: try JSONSerialization.data(withJSONObject: body))
    }

    static func text(of response: [String: Any]?) -> String? {
        let output = response?["output"] as? [[String: Any]] ?? []
        let message = output.first { $0["type"] as? String == "message" }
        return ((message?["content"] as? [[String: Any]])?.first)?["text"] as? String
    }

    @Test("a response, then one that continues it: the model sees the first exchange; both read back; another key finds neither")
    func continued() async throws {
        let model = ScriptedLanguageModel(replies: [["Paris", " is the capital."], ["About 2.1 million people."]])
        let server = try await Self.server(model)
        defer { server.stop() }
        let first = try await Self.post(server, ["model": "auto", "input": "What is the capital of France?", "instructions": "Be brief."])
        #expect(first.status == 200, "\(first.text)")
        #expect(first.json?["object"] as? String == "response" && first.json?["status"] as? String == "completed")
        #expect(Self.text(of: first.json) == "Paris is the capital.")
        let id = try #require(first.json?["id"] as? String)
        #expect(id.hasPrefix("resp_"))
        #expect((first.json?["usage"] as? [String: Any])?["output_tokens"] != nil)

        let second = try await Self.post(server, ["input": "How many people live there?", "previous_response_id": id])
        #expect(second.status == 200, "\(second.text)")
        #expect(Self.text(of: second.json) == "About 2.1 million people.")
        let asked = await model.requests.last?.messages.map(\.text)
        #expect(asked == ["What is the capital of France?", "Paris is the capital.", "How many people live there?"])

        let read = try await server.send(.GET, "/v1/responses/\(id)", headers: Self.one)
        #expect(read.status == 200 && Self.text(of: read.json) == "Paris is the capital.")
        // Kept as one thread of the key's saved conversations.
        let threads = try await server.runtime.store().threads(owner: Owner.apiKey("key-one"))
        #expect(threads.count == 1)

        let theirs = try await server.send(.GET, "/v1/responses/\(id)", headers: Self.two)
        #expect(theirs.status == 404)
        let continuedByThem = try await Self.post(server, ["input": "And Italy?", "previous_response_id": id], headers: Self.two)
        #expect(continuedByThem.status == 404)
        #expect((continuedByThem.json?["error"] as? [String: Any])?["param"] as? String == "previous_response_id")
        #expect(await model.requests.count == 2)

        let deleted = try await server.send(.DELETE, "/v1/responses/\(id)", headers: Self.one)
        #expect(deleted.status == 200 && deleted.json?["deleted"] as? Bool == true)
        #expect(try await server.send(.GET, "/v1/responses/\(id)", headers: Self.one).status == 404)
    }

    @Test("streamed: the Responses events in order, deltas that join to the text, and the kept id in response.completed")
    func streamed() async throws {
        let server = try await Self.server(ScriptedLanguageModel(replies: [["Paris", " is", " the capital."]]))
        defer { server.stop() }
        let reply = try await Self.post(server, ["input": "Capital of France?", "stream": true])
        #expect(reply.status == 200)
        let events = reply.text.components(separatedBy: "\n\n").compactMap { block -> [String: Any]? in
            guard let line = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
        }
        let types = events.compactMap { $0["type"] as? String }
        #expect(types.first == "response.created" && types.last == "response.completed")
        #expect(types.contains("response.output_item.added") && types.contains("response.output_text.done"))
        #expect(events.compactMap { $0["sequence_number"] as? Int } == Array(0..<events.count))
        let deltas = events.filter { $0["type"] as? String == "response.output_text.delta" }.compactMap { $0["delta"] as? String }
        #expect(deltas.joined() == "Paris is the capital.")
        let completed = events.last?["response"] as? [String: Any]
        let id = try #require(completed?["id"] as? String)
        #expect(try await server.send(.GET, "/v1/responses/\(id)", headers: Self.one).status == 200)
    }

    @Test("function tools: a call comes back as a function_call item; its output continues the response; a stray output is refused")
    func tools() async throws {
        let call = ToolCall(id: "call_7", name: "get_weather", arguments: #"{"city":"Paris"}"#)
        let model = ScriptedToolModel(turns: [.calls([call]), .text(["It is sunny in Paris."])])
        let server = try await Self.server(model)
        defer { server.stop() }
        let tool: [String: Any] = [
            "type": "function", "name": "get_weather", "description": "Weather in a city.",
            "parameters": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
        ]
        let first = try await Self.post(server, ["input": "Weather in Paris?", "tools": [tool]])
        #expect(first.status == 200, "\(first.text)")
        let output = first.json?["output"] as? [[String: Any]] ?? []
        let item = try #require(output.first { $0["type"] as? String == "function_call" })
        #expect(item["call_id"] as? String == "call_7" && item["name"] as? String == "get_weather" && item["arguments"] as? String == #"{"city":"Paris"}"#)
        #expect(await model.requests.first?.tools.map(\.name) == ["get_weather"])

        let stray = try await Self.post(
            server,
            [
                "input": [["type": "function_call_output", "call_id": "call_unknown", "output": "x"]],
                "previous_response_id": try #require(first.json?["id"] as? String), "tools": [tool],
            ])
        #expect(stray.status == 400)
        let answered = try await Self.post(
            server,
            [
                "input": [["type": "function_call_output", "call_id": "call_7", "output": #"{"sky": "sunny"}"#]],
                "previous_response_id": try #require(first.json?["id"] as? String), "tools": [tool],
            ])
        #expect(answered.status == 200, "\(answered.text)")
        #expect(Self.text(of: answered.json) == "It is sunny in Paris.")
        let messages = await model.requests.last?.messages ?? []
        #expect(messages.map(\.role) == [.user, .assistant, .tool])
        #expect(messages.last?.text == #"{"sky": "sunny"}"# && messages.last?.toolCallID == "call_7")
    }

    @Test("store false keeps nothing; bad input gets one clear 400 naming the field")
    func refusals() async throws {
        let server = try await Self.server(ScriptedLanguageModel(replies: [["Hi."]]))
        defer { server.stop() }
        let unkept = try await Self.post(server, ["input": "Hello", "store": false])
        #expect(unkept.status == 200)
        let id = try #require(unkept.json?["id"] as? String)
        #expect(try await server.send(.GET, "/v1/responses/\(id)", headers: Self.one).status == 404)
        #expect(try await server.runtime.store().threads(owner: Owner.apiKey("key-one")).isEmpty)
        let cases: [([String: Any], String)] = [
            (["model": "auto"], "input"),
            (["input": "Hi", "frobnicate": true], "frobnicate"),
            (["input": [["role": "robot", "content": "Hi"]]], "input[0].role"),
            (["input": "Hi", "tools": [["type": "web_search"]]], "tools[0].type"),
            (["input": "Hi", "tool_choice": ["type": "function", "name": "nope"]], "tool_choice"),
            (["input": "Hi", "temperature": 5], "temperature"),
            (["input": "Hi", "previous_response_id": "resp_nope"], "previous_response_id"),
            (["input": [["role": "system", "content": ""]]], "input"),
        ]
        for (body, param) in cases {
            let reply = try await Self.post(server, body)
            #expect(reply.status == 400 || reply.status == 404, "\(body): \(reply.status)")
            #expect((reply.json?["error"] as? [String: Any])?["param"] as? String == param, "\(body): \(reply.text)")
        }
    }

    @Test("instructions alone are a response, as OpenAI takes them: a system item, and the model speaks first")
    func instructionsOnly() async throws {
        let model = ScriptedLanguageModel(replies: [["Hello, Ada!"]])
        let server = try await Self.server(model)
        defer { server.stop() }
        let item = try await Self.post(server, ["input": [["role": "system", "content": "Greet the user, Ada, by name."]], "store": false])
        #expect(item.status == 200, "\(item.text)")
        #expect(Self.text(of: item.json) == "Hello, Ada!")
        let sent = await model.requests.first?.messages
        #expect(sent?.map(\.role) == [.system] && sent?.first?.text == "Greet the user, Ada, by name.")
    }
}
