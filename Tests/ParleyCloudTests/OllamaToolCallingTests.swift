import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// Tool calling over Ollama's `/api/chat`, against a server speaking its documented wire
/// format: `tools` in the function shape, calls whole in a chunk's `message.tool_calls` with
/// object arguments and no ids, and `tool` messages with `tool_name`.
@Suite("Ollama tool calling on the wire")
struct OllamaToolCallingTests {
    func model(_ server: WireServer) -> OllamaLanguageModel {
        OllamaLanguageModel(configuration: .init(host: server.baseURL, model: "llama3.2"))
    }

    static let textLines = [
        ToolWire.ollamaLine(["role": "assistant", "content": "Hello."]),
        ToolWire.ollamaLine(["role": "assistant", "content": ""], done: true),
    ]

    @Test(
        "the tools the model may call are sent in the function shape; none for .none, only the named one for a named choice",
        arguments: [
            (ToolChoice.auto, ["get_weather", "get_time"]), (.required, ["get_weather", "get_time"]), (.none, []),
            (.function("get_time"), ["get_time"]),
        ])
    func requestBody(choice: ToolChoice, sent: [String]) async throws {
        let server = try await WireServer.start { ToolWire.ollamaReply($0, Self.textLines) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(choice))
        #expect(transcript.error == nil && transcript.text == "Hello.")
        let body = try #require(await server.requests.first?.json)
        #expect(body["tool_choice"] == nil, "Ollama has no tool_choice")
        guard !sent.isEmpty else {
            #expect(body["tools"] == nil)
            return
        }
        let tools = try #require(body["tools"] as? [[String: Any]])
        #expect(tools.map { $0["type"] as? String } == sent.map { _ in "function" })
        let functions = tools.compactMap { $0["function"] as? [String: Any] }
        #expect(functions.map { $0["name"] as? String } == sent)
        #expect((functions.first?["parameters"] as? [String: Any])?["type"] as? String == "object")
        #expect(functions.first?["description"] is String)
    }

    @Test("a call in a streamed chunk: an id is made, the object arguments become JSON text in their order, .toolCalls")
    func streamedSingle() async throws {
        let arguments: JSONValue = ["unit": "c", "city": "Zürich"]
        let server = try await WireServer.start {
            ToolWire.ollamaReply(
                $0,
                [
                    ToolWire.ollamaLine(["role": "assistant", "content": "", "tool_calls": [ToolWire.ollamaCall("get_weather", arguments)]]),
                    ToolWire.ollamaLine(["role": "assistant", "content": ""], done: true),
                ])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        let call = try #require(transcript.calls.first)
        #expect(transcript.calls.count == 1)
        #expect(call.id.hasPrefix("call_") && call.id.count == 29)
        #expect(call.name == "get_weather")
        #expect(call.arguments == #"{"unit":"c","city":"Zürich"}"#)
        #expect(transcript.deltas == [ToolCallDelta(index: 0, id: call.id, name: "get_weather", arguments: call.arguments)])
        #expect(transcript.finish == .toolCalls)
        #expect(transcript.usage == Usage(inputTokens: 12, outputTokens: 7))
    }

    @Test("parallel calls in one chunk, and a later chunk's call, each with its own id, in order")
    func parallel() async throws {
        let server = try await WireServer.start {
            ToolWire.ollamaReply(
                $0,
                [
                    ToolWire.ollamaLine([
                        "role": "assistant", "content": "",
                        "tool_calls": [ToolWire.ollamaCall("get_weather", ["city": "Zürich"]), ToolWire.ollamaCall("get_time", ["zone": "Asia/Tokyo"])],
                    ]),
                    ToolWire.ollamaLine(["role": "assistant", "content": "", "tool_calls": [ToolWire.ollamaCall("get_time", ["zone": "Europe/Zurich"])]]),
                    ToolWire.ollamaLine(["role": "assistant", "content": ""], done: true),
                ])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.calls.map(\.name) == ["get_weather", "get_time", "get_time"])
        #expect(transcript.calls.map(\.arguments) == [#"{"city":"Zürich"}"#, #"{"zone":"Asia/Tokyo"}"#, #"{"zone":"Europe/Zurich"}"#])
        #expect(Set(transcript.calls.map(\.id)).count == 3)
        #expect(transcript.deltas.map(\.index) == [0, 1, 2])
    }

    @Test("a whole answer (one line, done) with a call, and the arguments a string from a proxy")
    func whole() async throws {
        let server = try await WireServer.start {
            ToolWire.ollamaReply(
                $0,
                [
                    ToolWire.ollamaLine(
                        [
                            "role": "assistant", "content": "",
                            "tool_calls": [ToolWire.ollamaCall("get_time", .string(#"{"zone":"UTC"}"#))],
                        ], done: true)
                ])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.calls.map(\.arguments) == [#"{"zone":"UTC"}"#])
        #expect(transcript.finish == .toolCalls)
    }

    @Test("the history's calls go with object arguments, the results as tool messages with tool_name")
    func history() async throws {
        let server = try await WireServer.start { ToolWire.ollamaReply($0, Self.textLines) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(history: ToolWire.history))
        #expect(transcript.error == nil)
        let messages = try #require(await server.requests.first?.json?["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "tool", "tool"])
        #expect(messages[2]["content"] as? String == "Let me look.")
        let calls = try #require(messages[2]["tool_calls"] as? [[String: Any]])
        let function = try #require(calls.first?["function"] as? [String: Any])
        #expect(function["name"] as? String == "get_weather")
        #expect((function["arguments"] as? [String: Any])?["city"] as? String == "Zürich", "arguments are an object")
        #expect(messages[3]["content"] as? String == #"{"celsius":21}"#)
        #expect(messages[3]["tool_name"] as? String == "get_weather")
        #expect(messages[4]["tool_name"] as? String == "get_time", "a result without a name gets its call's")
        #expect(messages[4]["content"] as? String == "The clock service is down.")
    }

    @Test("arguments that break the schema, also after the repair round, are a clear error")
    func invalidArguments() async throws {
        let server = try await WireServer.start {
            ToolWire.ollamaReply(
                $0,
                [
                    ToolWire.ollamaLine(
                        ["role": "assistant", "content": "", "tool_calls": [ToolWire.ollamaCall("get_weather", [:])]],
                        done: true)
                ])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        let error = try #require(transcript.error as? ToolCallError)
        #expect(error.provider == "ollama")
        #expect(error.reason == .invalidArguments(problems: ["$.city: is required but missing"]))
        #expect(transcript.calls.isEmpty)
        let chats = await server.requests.filter { $0.path == "/api/chat" }.compactMap(\.json)
        #expect(chats.count == 2)
        let repairTools = try #require(chats.last?["tools"] as? [[String: Any]])
        #expect(
            repairTools.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } == ["get_weather"],
            "the repair round offers only the tool to call again")
        let messages = try #require(chats.last?["messages"] as? [[String: Any]])
        #expect(messages.last?["role"] as? String == "tool" && messages.last?["tool_name"] as? String == "get_weather")
    }
}
