import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// Function calling over Chat Completions, against a server speaking OpenAI's documented wire
/// format: `tools`, `tool_choice`, `parallel_tool_calls`, streamed `delta.tool_calls`, whole
/// `message.tool_calls`, and `tool` messages in the history.
@Suite("OpenAI tool calling on the wire")
struct OpenAIToolCallingTests {
    func model(_ server: WireServer) -> OpenAILanguageModel {
        OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test"))
    }

    @Test("the request declares the tools as functions, the choice, and parallel_tool_calls; a request without tools has none of them")
    func requestBody() async throws {
        let server = try await WireServer.start { _ in ToolWire.openAISingleCall(arguments: #"{"city":"Zürich"}"#) }
        defer { server.stop() }
        _ = await ToolTranscript.collect(model(server), ToolWire.request(parallel: false))
        _ = await ToolTranscript.collect(model(server), plainRequest)
        let bodies = await server.requests.compactMap(\.json)
        #expect(bodies.count == 2)
        let tools = try #require(bodies[0]["tools"] as? [[String: Any]])
        #expect(tools.map { $0["type"] as? String } == ["function", "function"])
        let functions = tools.compactMap { $0["function"] as? [String: Any] }
        #expect(functions.map { $0["name"] as? String } == ["get_weather", "get_time"])
        #expect(functions[0]["description"] as? String == "The current weather in a city.")
        let parameters = try #require(functions[0]["parameters"] as? [String: Any])
        #expect(parameters["type"] as? String == "object")
        #expect(parameters["required"] as? [String] == ["city"])
        #expect(functions[0]["strict"] == nil, "strict only when the tool says")
        #expect(functions[1]["strict"] as? Bool == true)
        #expect(bodies[0]["tool_choice"] as? String == "auto")
        #expect(bodies[0]["parallel_tool_calls"] as? Bool == false)
        #expect(bodies[1]["tools"] == nil && bodies[1]["tool_choice"] == nil && bodies[1]["parallel_tool_calls"] == nil)
    }

    @Test(
        "tool_choice maps to auto, none, required, or the named function",
        arguments: [
            (ToolChoice.auto, "auto"), (.none, "none"), (.required, "required"), (.function("get_time"), "get_time"),
        ])
    func choices(choice: ToolChoice, expected: String) async throws {
        let server = try await WireServer.start { _ in ToolWire.openAIStream([ToolWire.openAIChunk(["content": "Hi."])] + ToolWire.openAIEnd("stop")) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(choice))
        #expect(transcript.error == nil)
        let body = try #require(await server.requests.first?.json)
        #expect((body["tools"] as? [Any])?.count == 2, "every declared tool is sent, whatever the choice")
        if case .function = choice {
            let named = try #require(body["tool_choice"] as? [String: Any])
            #expect(named["type"] as? String == "function")
            #expect((named["function"] as? [String: Any])?["name"] as? String == expected)
        } else {
            #expect(body["tool_choice"] as? String == expected)
        }
    }

    @Test("a streamed call: deltas as they come (id and name first), then the whole call, then .toolCalls")
    func streamedSingle() async throws {
        let arguments = #"{"city":"Zürich","unit":"c"}"#
        let server = try await WireServer.start { _ in ToolWire.openAISingleCall(id: "call_abc", arguments: arguments) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.calls == [ToolCall(id: "call_abc", name: "get_weather", arguments: arguments)])
        #expect(transcript.deltas.first == ToolCallDelta(index: 0, id: "call_abc", name: "get_weather"))
        #expect(transcript.deltas.count == 4)
        #expect(transcript.streamedArguments(0) == arguments)
        #expect(transcript.finish == .toolCalls)
        #expect(transcript.usage == Usage(inputTokens: 50, outputTokens: 20))
    }

    @Test("two calls streamed in parallel, fragments interleaved and split at awkward byte boundaries", arguments: [1, 5, 13])
    func streamedParallel(size: Int) async throws {
        let weather = #"{"city":"São Paulo — Zürich","unit":"c"}"#
        let time = #"{"zone":"Asia/Tōkyō"}"#
        var events = [ToolWire.openAIChunk(["role": "assistant", "content": "Checking… "])]
        events.append(ToolWire.openAIPiece(0, id: "call_w", name: "get_weather", String(weather.prefix(9))))
        events.append(ToolWire.openAIPiece(1, id: "call_t", name: "get_time", String(time.prefix(4))))
        events.append(ToolWire.openAIPiece(0, String(weather.dropFirst(9).prefix(12))))
        events.append(ToolWire.openAIPiece(1, String(time.dropFirst(4))))
        events.append(ToolWire.openAIPiece(0, String(weather.dropFirst(21))))
        let stream = sse(events + ToolWire.openAIEnd())
        #expect(!awkwardOffsets(Data(stream.utf8)).isEmpty, "the stream has multi-byte characters to split")
        let server = try await WireServer.start { _ in
            .stream(contentType: "text/event-stream", chunks: chunked(stream, size: size))
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.text == "Checking… ")
        #expect(
            transcript.calls == [
                ToolCall(id: "call_w", name: "get_weather", arguments: weather),
                ToolCall(id: "call_t", name: "get_time", arguments: time),
            ])
        #expect(transcript.deltas.map(\.index) == [0, 1, 0, 1, 0])
        #expect(transcript.streamedArguments(0) == weather && transcript.streamedArguments(1) == time)
        #expect(transcript.finish == .toolCalls)
    }

    @Test("a whole completion (a server that ignores stream) with message.tool_calls")
    func wholeCompletion() async throws {
        let completion = #"""
            {"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}},
            {"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{\"zone\":\"Asia/Tokyo\"}"}}]},
            "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":20}}
            """#
        let server = try await WireServer.start { _ in .json(200, completion) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(
            transcript.calls == [
                ToolCall(id: "call_1", name: "get_weather", arguments: #"{"city":"Zürich"}"#),
                ToolCall(id: "call_2", name: "get_time", arguments: #"{"zone":"Asia/Tokyo"}"#),
            ])
        #expect(transcript.deltas.isEmpty)
        #expect(transcript.finish == .toolCalls)
        #expect(transcript.usage == Usage(inputTokens: 50, outputTokens: 20))
    }

    @Test("the history's calls go as assistant tool_calls, the results as tool messages with tool_call_id")
    func history() async throws {
        let server = try await WireServer.start { _ in ToolWire.openAIStream([ToolWire.openAIChunk(["content": "21 °C."])] + ToolWire.openAIEnd("stop")) }
        defer { server.stop() }
        let noText = ChatMessage.assistant(toolCalls: [ToolCall(id: "call_x", name: "get_time", arguments: "")])
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request(history: ToolWire.history + [noText]))
        #expect(transcript.text == "21 °C.")
        #expect(transcript.finish == .stop)
        let messages = try #require(await server.requests.first?.json?["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "tool", "tool", "assistant"])
        #expect(messages[2]["content"] as? String == "Let me look.")
        let calls = try #require(messages[2]["tool_calls"] as? [[String: Any]])
        #expect(calls.map { $0["id"] as? String } == ["call_w1", "call_t1"])
        #expect(calls.map { $0["type"] as? String } == ["function", "function"])
        let function = try #require(calls[0]["function"] as? [String: Any])
        #expect(function["name"] as? String == "get_weather")
        #expect(function["arguments"] as? String == #"{"city":"Zürich"}"#, "arguments travel as JSON text")
        #expect(messages[3]["tool_call_id"] as? String == "call_w1")
        #expect(messages[3]["content"] as? String == #"{"celsius":21}"#)
        #expect(messages[4]["tool_call_id"] as? String == "call_t1")
        #expect(messages[4]["content"] as? String == "The clock service is down.")
        #expect(messages[5].keys.contains("content") && messages[5]["content"] is NSNull, "an assistant that only calls has content null")
        #expect(((messages[5]["tool_calls"] as? [[String: Any]])?.first?["function"] as? [String: Any])?["arguments"] as? String == "{}")
    }

    @Test("arguments that break the schema are sent back once; still wrong, the caller gets a clear error")
    func invalidArguments() async throws {
        let server = try await WireServer.start { _ in ToolWire.openAISingleCall(id: "call_bad", arguments: #"{"town":"Zürich"}"#) }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        let error = try #require(transcript.error as? ToolCallError)
        #expect(error.provider == "openai")
        #expect(error.call.name == "get_weather")
        #expect(error.reason == .invalidArguments(problems: ["$.city: is required but missing", "$.town: is not a property of this object"]))
        #expect(error.repairTried)
        #expect(error.description.contains("get_weather") && error.description.contains("$.city: is required but missing"))
        #expect(transcript.calls.isEmpty, "no invalid call reaches the caller")
        #expect(transcript.finish == nil)
        let bodies = await server.requests.compactMap(\.json)
        #expect(bodies.count == 2, "one answer and one repair round")
        let repair = try #require(bodies.last)
        let named = try #require(repair["tool_choice"] as? [String: Any])
        #expect((named["function"] as? [String: Any])?["name"] as? String == "get_weather")
        #expect(repair["parallel_tool_calls"] as? Bool == false)
        let messages = try #require(repair["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "tool"])
        #expect(messages[3]["tool_call_id"] as? String == "call_bad")
        #expect((messages[3]["content"] as? String)?.contains("$.city: is required but missing") == true)
    }

    @Test("a repair round that corrects the arguments gives the corrected call under the first id")
    func repaired() async throws {
        let server = try await WireServer.start { recorded in
            let repairing = (recorded.json?["messages"] as? [[String: Any]])?.contains { $0["role"] as? String == "tool" } == true
            return repairing
                ? ToolWire.openAISingleCall(id: "call_new", arguments: #"{"city":"Zürich"}"#)
                : ToolWire.openAISingleCall(id: "call_bad", arguments: #"{"city":21}"#)
        }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        #expect(transcript.error == nil)
        #expect(transcript.calls == [ToolCall(id: "call_bad", name: "get_weather", arguments: #"{"city":"Zürich"}"#)])
        #expect(transcript.finish == .toolCalls)
        #expect(transcript.usage == Usage(inputTokens: 100, outputTokens: 40), "the repair round's usage is counted")
        #expect(await server.requests.count == 2)
    }

    @Test("a call of a tool the request does not declare is an error, without a repair round")
    func undeclared() async throws {
        let server = try await WireServer.start { _ in ToolWire.openAISingleCall(name: "delete_everything", arguments: "{}") }
        defer { server.stop() }
        let transcript = await ToolTranscript.collect(model(server), ToolWire.request())
        let error = try #require(transcript.error as? ToolCallError)
        #expect(error.reason == .undeclaredTool(declared: ["get_weather", "get_time"]))
        #expect(error.description.contains("delete_everything"))
        #expect(await server.requests.count == 1)
    }

    @Test("a server configured without tools refuses a request that offers them, before sending")
    func withoutTools() async throws {
        let server = try await WireServer.start { _ in .json(500, #"{"error":"should not be called"}"#) }
        defer { server.stop() }
        let model = OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", model: "local", name: "vllm", supportsTools: false))
        let transcript = await ToolTranscript.collect(model, ToolWire.request())
        #expect(transcript.error as? UnsupportedCapabilityError == UnsupportedCapabilityError(missing: [.tools], providers: ["vllm (local)"]))
        #expect(await server.requests.isEmpty)
    }
}
