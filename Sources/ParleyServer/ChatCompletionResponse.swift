import Foundation
import ParleyCore

/// The documents `POST /v1/chat/completions` answers with: a whole completion, or the chunks
/// of a stream (`chat.completion.chunk`), in OpenAI's shape.
enum ChatCompletionResponse {
    struct Usage: Encodable {
        var prompt_tokens: Int
        var completion_tokens: Int
        var total_tokens: Int

        init(_ usage: ParleyCore.Usage) {
            prompt_tokens = usage.inputTokens
            completion_tokens = usage.outputTokens
            total_tokens = usage.totalTokens
        }
    }

    /// A call in OpenAI's shape: `{"id", "type": "function", "function": {"name", "arguments"}}`,
    /// and in a stream's delta `{"index", …}` with only the parts that piece carries.
    struct ToolCallItem: Encodable {
        struct Function: Encodable {
            var name: String?
            var arguments: String?
        }
        var index: Int?
        var id: String?
        var type: String?
        var function: Function

        init(_ call: ToolCall) {
            id = call.id
            type = "function"
            function = Function(name: call.name, arguments: call.arguments)
        }

        init(_ delta: ToolCallDelta) {
            index = delta.index
            id = delta.id
            type = delta.id == nil ? nil : "function"
            function = Function(name: delta.name, arguments: delta.arguments)
        }
    }

    struct Completion: Encodable {
        struct Choice: Encodable {
            struct Message: Encodable {
                var role = "assistant"
                var content: String?
                var tool_calls: [ToolCallItem]?

                init(content: String, toolCalls: [ToolCall] = []) {
                    // With calls and no text, `content` is null, as OpenAI sends it.
                    self.content = toolCalls.isEmpty || !content.isEmpty ? content : nil
                    tool_calls = toolCalls.isEmpty ? nil : toolCalls.map(ToolCallItem.init)
                }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(role, forKey: .role)
                    try container.encode(content, forKey: .content)
                    try container.encodeIfPresent(tool_calls, forKey: .tool_calls)
                }

                enum CodingKeys: String, CodingKey { case role, content, tool_calls }
            }
            var index = 0
            var message: Message
            var finish_reason: String
        }
        var id: String
        var object = "chat.completion"
        var created: Int
        var model: String
        var choices: [Choice]
        var usage: Usage
    }

    struct Chunk: Encodable {
        struct Choice: Encodable {
            struct Delta: Encodable {
                var role: String?
                var content: String?
                var tool_calls: [ToolCallItem]?
            }
            var index = 0
            var delta: Delta
            var finish_reason: String?

            func encode(to encoder: any Encoder) throws {
                // `finish_reason` is `null` until the last chunk, and clients read the key.
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(index, forKey: .index)
                try container.encode(delta, forKey: .delta)
                try container.encode(finish_reason, forKey: .finish_reason)
            }

            enum CodingKeys: String, CodingKey { case index, delta, finish_reason }
        }
        var id: String
        var object = "chat.completion.chunk"
        var created: Int
        var model: String
        var choices: [Choice]
        var usage: Usage?
    }

    /// OpenAI's name for why a reply ended.
    static func finishReason(_ reason: FinishReason) -> String {
        switch reason {
        case .length: "length"
        case .toolCalls: "tool_calls"
        case .stop, .cancelled: "stop"
        }
    }

    /// One server-sent event carrying `value` as JSON.
    static func event(_ value: some Encodable) -> String {
        let json = (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "data: \(json)\n\n"
    }

    /// The event that ends a stream.
    static let done = "data: [DONE]\n\n"
}
