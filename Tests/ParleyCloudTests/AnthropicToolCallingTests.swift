import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// Tool use over Anthropic's Messages API, against a server speaking its documented wire
/// format: `tools` with `input_schema`, `tool_choice`, `tool_use` blocks streamed as
/// `input_json_delta`, and `tool_result` blocks in user messages.
@Suite("Anthropic tool use on the wire")
struct AnthropicToolCallingTests {
    func model(_ server: WireServer) -> AnthropicLanguageModel {
        AnthropicLanguageModel(configuration: .init(baseURL: server.baseURL, apiKey: "sk-ant-test", model: "claude-test"))
    }

    static let textReply = ToolWire.anthropicStream([.text("Hello.")], stop: "end_turn")

    @Test("the request declares tools with input_schema; parallelToolCalls false disables parallel use")
    func requestBody() async throws {
        let server = try await WireServer.start { _ in Self.textReply }
        defer { server.stop() }
        _ = await ToolTranscript.collect(model(server), ToolWire.request(parallel: false))
        _ = await ToolTranscript.collect(model(server), plainRequest)
        let bodies = await server.requests.compactMap(\.json)
        let tools = try #require(bodies.first?["tools"] as? [[String: Any]])
        #expect(tools.map { $0["name"] as? String } == ["get_weather", "get_time"])
        #expect(tools[0]["description"] as? String == "The current weather in a city.")
        let schema = try #require(tools[0]["input_schema"] as? [String: Any])
        #expect(schema["type"] as? String == "object" && schema["required"] as? [String] == ["city"])
        #expect(tools[0]["type"] == nil && tools[0]["function"] == nil, "not OpenAI's shape")
        let choice = try #require(bodies.first?["tool_choice"] as? [String: Any])
        #expect(choice["type"] as? String == "auto")
        #expect(choice["disable_parallel_tool_use"] as? Bool == true)
        #expect(bodies.last?["tools"] == nil && bodies.last?["tool_choice"] == nil)
    }

    @Test(
        "tool_choice maps to auto, none, any, or the named tool",
        arguments: [
            (ToolChoice.auto, "auto", String?.none), (.none, "none", nil), (.required, "any", nil), (.function("get_time"), "tool", "get_time"),
        ])
    func choices(choice: ToolChoice, type: String, name: String?) async throws {
        let server = try await WireServer.start { _ in Self.textReply }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(choice))
        #expect(transcript.error == nil)
        let body = try #require(await server.requests.first?.json)
        #expect((body["tools"] as? [Any])?.count == 2)
        let sent = try #require(body["tool_choice"] as? [String: Any])
        #expect(sent["type"] as? String == type)
        #expect(sent["name"] as? String == name)
        #expect(sent["disable_parallel_tool_use"] == nil)
    }

    @Test("a streamed tool_use after text: deltas, then the whole call, then .toolCalls")
    func streamedSingle() async throws {
        let server = try await WireServer.start { _ in
            ToolWire.anthropicStream([.text("Let me check."), .toolUse(id: "toolu_1", name: "get_weather", input: ["", #"{"city": "Zü"#, #"rich"}"#])])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.text == "Let me check.")
        #expect(transcript.calls == [ToolCall(id: "toolu_1", name: "get_weather", arguments: #"{"city": "Zürich"}"#)])
        #expect(transcript.deltas.first == ToolCallDelta(index: 0, id: "toolu_1", name: "get_weather"))
        #expect(transcript.streamedArguments(0) == #"{"city": "Zürich"}"#)
        #expect(transcript.finish == .toolCalls)
        #expect(transcript.usage == Usage(inputTokens: 40, outputTokens: 30))
    }

    @Test("two tool_use blocks are two calls in order, their positions counted from 0", arguments: [3, 11, 64])
    func streamedParallel(size: Int) async throws {
        let server = try await WireServer.start { _ in
            ToolWire.anthropicStream(
                [
                    .text("Both."), .toolUse(id: "toolu_w", name: "get_weather", input: [#"{"ci"#, #"ty":"Zürich"}"#]),
                    .toolUse(id: "toolu_t", name: "get_time", input: [#"{"zone":"#, #""Asia/Tokyo"}"#]),
                ], size: size)
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(
            transcript.calls == [
                ToolCall(id: "toolu_w", name: "get_weather", arguments: #"{"city":"Zürich"}"#),
                ToolCall(id: "toolu_t", name: "get_time", arguments: #"{"zone":"Asia/Tokyo"}"#),
            ])
        #expect(Set(transcript.deltas.map(\.index)) == [0, 1])
        #expect(transcript.finish == .toolCalls)
    }

    @Test("a call whose input comes in one piece, and one without input (an empty object)")
    func wholeInput() async throws {
        let empty = try ToolDefinition(name: "list_timers", description: "The running timers.")
        let server = try await WireServer.start { _ in
            ToolWire.anthropicStream([
                .toolUse(id: "toolu_1", name: "get_time", input: [#"{"zone":"Europe/Zurich"}"#]),
                .toolUse(id: "toolu_2", name: "list_timers", input: []),
            ])
        }
        defer { server.stop() }
        var request = ToolWire.request()
        request.tools.append(empty)
        let transcript = await ToolTranscript.collect(model(server), request)
        #expect(transcript.error == nil)
        #expect(
            transcript.calls == [
                ToolCall(id: "toolu_1", name: "get_time", arguments: #"{"zone":"Europe/Zurich"}"#),
                ToolCall(id: "toolu_2", name: "list_timers", arguments: "{}"),
            ])
    }

    @Test("the history's calls go as tool_use blocks, the results as tool_result blocks merged into one user message")
    func history() async throws {
        let server = try await WireServer.start { _ in Self.textReply }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(history: ToolWire.history + [.user("Thanks.")]))
        #expect(transcript.error == nil)
        let body = try #require(await server.requests.first?.json)
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user"])
        let calls = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(calls.map { $0["type"] as? String } == ["text", "tool_use", "tool_use"])
        #expect(calls[1]["id"] as? String == "call_w1" && calls[1]["name"] as? String == "get_weather")
        #expect((calls[1]["input"] as? [String: Any])?["city"] as? String == "Zürich", "the input is an object, not text")
        let results = try #require(messages[2]["content"] as? [[String: Any]])
        #expect(results.map { $0["type"] as? String } == ["tool_result", "tool_result", "text"])
        #expect(results[0]["tool_use_id"] as? String == "call_w1" && results[0]["content"] as? String == #"{"celsius":21}"#)
        #expect(results[0]["is_error"] == nil)
        #expect(results[1]["tool_use_id"] as? String == "call_t1" && results[1]["is_error"] as? Bool == true)
        #expect(results[2]["text"] as? String == "Thanks.")
    }

    @Test("a response schema beside the tools: the answer tool gets a name of its own, and either kind of answer is read")
    func structuredBesideTools() async throws {
        let server = try await WireServer.start { recorded in
            let messages = recorded.json?["messages"] as? [[String: Any]] ?? []
            return messages.count == 1
                ? ToolWire.anthropicStream([.toolUse(id: "toolu_1", name: "get_weather", input: [#"{"city":"Zürich"}"#])])
                : ToolWire.anthropicStream([.toolUse(id: "toolu_2", name: "get_weather_answer", input: [#"{"celsius":"#, "21}"])])
        }
        defer { server.stop() }
        var request = ToolWire.request()
        request.responseSchema = ResponseSchema(name: "get_weather", schema: ["type": "object", "properties": ["celsius": ["type": "number"]]])
        let first = await ToolTranscript.collect(model(server), request)
        #expect(first.error == nil)
        #expect(first.calls == [ToolCall(id: "toolu_1", name: "get_weather", arguments: #"{"city":"Zürich"}"#)])
        #expect(first.text.isEmpty && first.finish == .toolCalls)
        request.messages += [.assistant(toolCalls: first.calls), .tool(callID: "toolu_1", content: "21 °C")]
        let second = await ToolTranscript.collect(model(server), request)
        #expect(second.error == nil)
        #expect(second.calls.isEmpty)
        #expect(second.text == #"{"celsius":21}"#)
        #expect(second.finish == .stop)
        let body = try #require(await server.requests.first?.json)
        #expect((body["tools"] as? [[String: Any]])?.map { $0["name"] as? String } == ["get_weather", "get_time", "get_weather_answer"])
        #expect((body["tool_choice"] as? [String: Any])?["type"] as? String == "any")
    }

    @Test("input that breaks the schema is sent back once as an error tool_result; still wrong, a clear error")
    func invalidArguments() async throws {
        let server = try await WireServer.start { _ in
            ToolWire.anthropicStream([.toolUse(id: "toolu_bad", name: "get_time", input: [#"{"zone": 9}"#])])
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        let error = try #require(transcript.error as? ToolCallError)
        #expect(error.provider == "anthropic" && error.call.name == "get_time" && error.repairTried)
        guard case .invalidArguments(let problems) = error.reason else {
            Issue.record("expected invalid arguments, got \(error.reason)")
            return
        }
        #expect(problems.count == 1 && problems[0].hasPrefix("$.zone"))
        #expect(transcript.calls.isEmpty)
        let repair = try #require(await server.requests.last?.json)
        #expect(await server.requests.count == 2)
        let choice = try #require(repair["tool_choice"] as? [String: Any])
        #expect(choice["type"] as? String == "tool" && choice["name"] as? String == "get_time")
        #expect(choice["disable_parallel_tool_use"] as? Bool == true)
        let messages = try #require(repair["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user"])
        let result = try #require((messages[2]["content"] as? [[String: Any]])?.first)
        #expect(result["type"] as? String == "tool_result" && result["tool_use_id"] as? String == "toolu_bad" && result["is_error"] as? Bool == true)
    }
}
