import Foundation
import ParleyCloud
import ParleyCore
import Testing

/// The three language-model providers, so that one test can run against each wire format.
enum WireFormat: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case openAI, anthropic, ollama

    var testDescription: String { rawValue }

    /// The test key each provider is given.
    static let key = "sk-secret-0123456789abcdef"

    /// The provider pointed at `baseURL`.
    func provider(_ baseURL: String, timeouts: HTTPTimeouts = HTTPTimeouts()) -> any LanguageModelProvider {
        switch self {
        case .openAI:
            OpenAILanguageModel(configuration: .init(baseURL: baseURL + "/v1", apiKey: Self.key, model: "gpt-test", timeouts: timeouts))
        case .anthropic:
            AnthropicLanguageModel(configuration: .init(baseURL: baseURL, apiKey: Self.key, model: "claude-test", timeouts: timeouts))
        case .ollama:
            OllamaLanguageModel(configuration: .init(host: baseURL, model: "llama3.2", timeouts: timeouts))
        }
    }

    /// The streaming content type.
    var contentType: String { self == .ollama ? "application/x-ndjson" : "text/event-stream" }

    /// Bytes that keep a held stream alive without adding text: an SSE comment, or a blank
    /// NDJSON line.
    var keepAlive: Data { Data((self == .ollama ? "\n" : ": keep-alive\n\n").utf8) }

    /// The first part of a reply that streams `first`, then `second`, and finishes (the whole
    /// reply is `opening + closing`), in the provider's documented format with `newline` as
    /// the line end.
    func reply(_ first: String, _ second: String, finish: FinishReason = .stop, newline: String = "\n") -> (opening: String, closing: String) {
        func sse(_ events: [(String?, String)]) -> String {
            events.map { name, data in (name.map { "event: \($0)\(newline)" } ?? "") + "data: \(data)\(newline)\(newline)" }.joined()
        }
        func quoted(_ text: String) -> String {
            String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        switch self {
        case .openAI:
            let reason = finish == .length ? "length" : "stop"
            return (
                sse([
                    (
                        nil,
                        #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":\#(quoted(first))},"finish_reason":null}]}"#
                    )
                ]),
                sse([
                    (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":\#(quoted(second))},"finish_reason":null}]}"#),
                    (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"\#(reason)"}]}"#),
                    (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}}"#),
                    (nil, "[DONE]"),
                ])
            )
        case .anthropic:
            let reason = finish == .length ? "max_tokens" : "end_turn"
            return (
                sse([
                    (
                        "message_start",
                        #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","usage":{"input_tokens":10,"output_tokens":1}}}"#
                    ),
                    ("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
                    ("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(quoted(first))}}"#),
                ]),
                sse([
                    ("ping", #"{"type":"ping"}"#),
                    ("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(quoted(second))}}"#),
                    ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
                    ("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(reason)","stop_sequence":null},"usage":{"output_tokens":4}}"#),
                    ("message_stop", #"{"type":"message_stop"}"#),
                ])
            )
        case .ollama:
            let reason = finish == .length ? "length" : "stop"
            return (
                #"{"model":"llama3.2","message":{"role":"assistant","content":\#(quoted(first))},"done":false}"# + newline,
                #"{"model":"llama3.2","message":{"role":"assistant","content":\#(quoted(second))},"done":false}"# + newline
                    + #"{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"\#(reason)","prompt_eval_count":10,"eval_count":4}"#
                    + newline
            )
        }
    }

    /// The usage the replies above report.
    var reportedUsage: Usage { Usage(inputTokens: 10, outputTokens: 4) }
}

/// The offsets of `bytes` where a cut is awkward: inside a UTF-8 character (before each
/// continuation byte) and between CR and LF.
func awkwardOffsets(_ bytes: Data) -> [Int] {
    let array = Array(bytes)
    return array.indices.filter { index in
        index > 0 && ((0x80...0xBF).contains(array[index]) || (array[index - 1] == 0x0D && array[index] == 0x0A))
    }
}
