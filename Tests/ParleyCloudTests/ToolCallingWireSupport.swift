import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// The tools, requests and reply builders the tool-calling wire tests share.
enum ToolWire {
    static let weather = try! ToolDefinition(
        name: "get_weather", description: "The current weather in a city.",
        parameters: ["type": "object", "properties": ["city": ["type": "string"], "unit": ["type": "string"]], "required": ["city"]])
    static let time = try! ToolDefinition(
        name: "get_time", description: "The local time in a time zone.",
        parameters: ["type": "object", "properties": ["zone": ["type": "string"]], "required": ["zone"]], strict: true)

    /// A question that calls for both tools.
    static func request(_ choice: ToolChoice = .auto, parallel: Bool = true, history: [ChatMessage] = []) -> ChatRequest {
        ChatRequest(
            messages: [.system("Be brief."), .user("Weather in Zürich, and the time in Tokyo?")] + history,
            sampling: SamplingOptions(temperature: 0, maxTokens: 64), tools: [weather, time], toolChoice: choice,
            parallelToolCalls: parallel)
    }

    /// A finished exchange: the assistant called both tools, and both answered (the second with an error).
    static let history: [ChatMessage] = [
        .assistant(
            "Let me look.",
            toolCalls: [
                ToolCall(id: "call_w1", name: "get_weather", arguments: #"{"city":"Zürich"}"#),
                ToolCall(id: "call_t1", name: "get_time", arguments: #"{"zone":"Asia/Tokyo"}"#),
            ]),
        .tool(callID: "call_w1", name: "get_weather", content: #"{"celsius":21}"#),
        .tool(callID: "call_t1", content: "The clock service is down.", isError: true),
    ]

    /// The JSON value of `text` (for comparing arguments regardless of spacing).
    static func json(_ text: String) -> JSONValue? { try? JSONValue(parsing: text) }

    // MARK: OpenAI

    /// A Chat Completions chunk with `delta` (JSON) and an optional finish reason.
    static func openAIChunk(_ delta: JSONValue, finish: String? = nil) -> (String?, String) {
        let choice: JSONValue = ["index": 0, "delta": delta, "finish_reason": finish.map(JSONValue.string) ?? .null]
        return (nil, JSONValue.object(["id": "c1", "object": "chat.completion.chunk", "choices": [choice]]).text)
    }

    /// A chunk carrying one piece of call `index`: id and name in its first piece.
    static func openAIPiece(_ index: Int, id: String? = nil, name: String? = nil, _ arguments: String) -> (String?, String) {
        var call: JSONObject = ["index": .number(Double(index))]
        if let id {
            call["id"] = .string(id)
            call["type"] = "function"
        }
        var function: JSONObject = [:]
        if let name { function["name"] = .string(name) }
        function["arguments"] = .string(arguments)
        call["function"] = .object(function)
        return openAIChunk(["tool_calls": [.object(call)]])
    }

    /// The events that end an OpenAI stream: the finish reason, usage, `[DONE]`.
    static func openAIEnd(_ finish: String = "tool_calls") -> [(String?, String)] {
        [
            openAIChunk([:], finish: finish),
            (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}"#),
            (nil, "[DONE]"),
        ]
    }

    /// An OpenAI stream of `events`, in chunks of `size` bytes.
    static func openAIStream(_ events: [(String?, String)], size: Int = 9, ending: WireServer.Ending = .complete) -> WireServer.Reply {
        .stream(contentType: "text/event-stream", chunks: chunked(sse(events), size: size), ending: ending)
    }

    /// A stream calling `name` once with `arguments` in three fragments.
    static func openAISingleCall(id: String = "call_1", name: String = "get_weather", arguments: String) -> WireServer.Reply {
        let third = max(1, arguments.count / 3)
        let pieces = [String(arguments.prefix(third)), String(arguments.dropFirst(third).prefix(third)), String(arguments.dropFirst(2 * third))]
        var events = [openAIChunk(["role": "assistant", "content": nil])]
        events.append(openAIPiece(0, id: id, name: name, ""))
        events += pieces.map { openAIPiece(0, $0) }
        return openAIStream(events + openAIEnd())
    }

    // MARK: Anthropic

    /// A content block of an Anthropic reply.
    enum AnthropicBlock {
        case text(String)
        case toolUse(id: String, name: String, input: [String])
    }

    /// Anthropic's stream of `blocks`, ending with `stop`.
    static func anthropicEvents(_ blocks: [AnthropicBlock], stop: String = "tool_use") -> [(String?, String)] {
        var events: [(String?, String)] = [
            (
                "message_start",
                #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"usage":{"input_tokens":40,"output_tokens":1}}}"#
            )
        ]
        for (index, block) in blocks.enumerated() {
            let position = JSONValue.number(Double(index))
            switch block {
            case .text(let text):
                events.append(
                    (
                        "content_block_start",
                        JSONValue.object([
                            "type": "content_block_start", "index": position,
                            "content_block": ["type": "text", "text": ""],
                        ]).text
                    ))
                events.append(
                    (
                        "content_block_delta",
                        JSONValue.object([
                            "type": "content_block_delta", "index": position,
                            "delta": ["type": "text_delta", "text": .string(text)],
                        ]).text
                    ))
            case .toolUse(let id, let name, let input):
                events.append(
                    (
                        "content_block_start",
                        JSONValue.object([
                            "type": "content_block_start", "index": position,
                            "content_block": ["type": "tool_use", "id": .string(id), "name": .string(name), "input": [:]],
                        ]).text
                    ))
                events += input.map { piece in
                    (
                        "content_block_delta",
                        JSONValue.object([
                            "type": "content_block_delta", "index": position,
                            "delta": ["type": "input_json_delta", "partial_json": .string(piece)],
                        ]).text
                    )
                }
            }
            events.append(("ping", #"{"type":"ping"}"#))
            events.append(("content_block_stop", JSONValue.object(["type": "content_block_stop", "index": position]).text))
        }
        events.append(("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(stop)","stop_sequence":null},"usage":{"output_tokens":30}}"#))
        events.append(("message_stop", #"{"type":"message_stop"}"#))
        return events
    }

    static func anthropicStream(_ blocks: [AnthropicBlock], stop: String = "tool_use", size: Int = 11) -> WireServer.Reply {
        .stream(contentType: "text/event-stream", chunks: chunked(sse(anthropicEvents(blocks, stop: stop)), size: size))
    }

    // MARK: Ollama

    /// An Ollama NDJSON line with `message`; the last line (`done`) reports usage.
    static func ollamaLine(_ message: JSONValue, done: Bool = false) -> String {
        var line: JSONObject = ["model": "llama3.2", "message": message, "done": .bool(done)]
        if done {
            line["done_reason"] = "stop"
            line["prompt_eval_count"] = 12
            line["eval_count"] = 7
        }
        return JSONValue.object(line).text + "\n"
    }

    /// An Ollama call: the function's name and its arguments as an object.
    static func ollamaCall(_ name: String, _ arguments: JSONValue) -> JSONValue {
        ["function": ["name": .string(name), "arguments": arguments]]
    }

    /// An Ollama server: `/api/tags` lists llama3.2; `/api/chat` answers with `lines`.
    static func ollamaReply(_ recorded: WireServer.Recorded, _ lines: [String]) -> WireServer.Reply {
        recorded.path == "/api/tags"
            ? .json(200, #"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}"#)
            : .stream(contentType: "application/x-ndjson", chunks: chunked(lines.joined(), size: 23))
    }
}

/// Everything a reply streamed: text, call pieces, whole calls, the end or the error.
struct ToolTranscript: Sendable {
    var text = ""
    var deltas: [ToolCallDelta] = []
    var calls: [ToolCall] = []
    var providers: [ProviderIdentity] = []
    var finish: FinishReason?
    var usage: Usage?
    var error: (any Error)?

    /// The arguments the pieces of call `index` add up to.
    func streamedArguments(_ index: Int) -> String {
        deltas.filter { $0.index == index }.map(\.arguments).joined()
    }

    static func collect(_ provider: some LanguageModelProvider, _ request: ChatRequest) async -> ToolTranscript {
        var transcript = ToolTranscript()
        do {
            for try await event in provider.complete(request) {
                switch event {
                case .text(let piece): transcript.text += piece
                case .toolCallDelta(let piece): transcript.deltas.append(piece)
                case .toolCall(let call): transcript.calls.append(call)
                case .provider(let identity): transcript.providers.append(identity)
                case .finished(let reason, let usage):
                    transcript.finish = reason
                    transcript.usage = usage
                }
            }
        } catch {
            transcript.error = error
        }
        return transcript
    }
}
