import Foundation
import ParleyCore
import ParleyData

extension ResponsesEndpoint {
    /// One response being made (or read back): what the model wrote, and the documents of
    /// the Responses API built from it.
    struct Reply: Sendable {
        var request: ResponsesRequest
        var requested: String
        /// The thread the exchange is kept in; `nil` for a new one (or none).
        var thread: Int64?
        /// The new input, as it is kept.
        var fresh: [ConversationMessage]
        var title: String?
        var provider: ProviderIdentity?
        var text = ""
        var calls: [ToolCall] = []
        var usage = Usage()
        var finish = FinishReason.stop
        var created = ServerEnvironment.now
        /// The id of a response that is not kept.
        let ephemeralID = "resp_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        /// The id of the output message item.
        var messageID = "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()

        init(request: ResponsesRequest, requested: String, thread: Int64?, fresh: [ConversationMessage], title: String?) {
            self.request = request
            self.requested = requested
            self.thread = thread
            self.fresh = fresh
            self.title = title
        }

        /// A kept reply read back.
        init(retrieved message: ConversationMessage, thread: StoredThread?, created: Int) {
            let request = ResponsesRequest(
                model: nil, input: [], instructions: thread?.settings.systemPrompt.isEmpty == false ? thread?.settings.systemPrompt : nil,
                streams: false, stores: true, previousResponseID: nil, tools: [], toolsJSON: [], toolChoice: .auto,
                toolChoiceJSON: "auto", parallelToolCalls: true,
                sampling: SamplingOptions(temperature: 1, topP: 1, maxTokens: thread?.settings.maxTokens ?? 512),
                maxOutputTokens: nil, schema: nil, textJSON: .object(["format": .object(["type": "text"])]),
                metadata: .object([:]), temperature: 1, topP: 1)
            self.init(request: request, requested: message.provider ?? "auto", thread: thread?.id, fresh: [], title: nil)
            text = message.text
            calls = message.toolCalls
            usage = message.usage ?? Usage()
            self.created = created
        }

        /// The structured result, when a schema asked for one.
        var structured: JSONValue? {
            guard request.schema != nil else { return nil }
            return try? JSONValue(parsing: text)
        }

        mutating func take(_ event: ChatEvent) {
            switch event {
            case .text(let piece): text += piece
            case .toolCall(let call): calls.append(call)
            case .finished(let reason, let reported):
                finish = reason
                usage = reported
            case .provider(let identity): provider = identity
            case .toolCallDelta: break
            }
        }

        var model: String { provider.map { $0.model ?? $0.name } ?? requested }

        func callItemID(_ offset: Int) -> String { "fc_" + messageID.dropFirst(4) + "_\(offset)" }

        static func textPart(_ text: String) -> JSONValue {
            ["type": "output_text", "text": .string(text), "annotations": .array([]), "logprobs": .array([])]
        }

        func messageItem(status: String, text: String?) -> JSONValue {
            [
                "type": "message", "id": .string(messageID), "status": .string(status), "role": "assistant",
                "content": .array(text.map { [Self.textPart($0)] } ?? []),
            ]
        }

        func callItem(_ call: ToolCall, offset: Int, status: String, arguments: String) -> JSONValue {
            [
                "type": "function_call", "id": .string(callItemID(offset)), "call_id": .string(call.id), "name": .string(call.name),
                "arguments": .string(arguments), "status": .string(status),
            ]
        }

        /// The output items: the message (when there is text, or no call), then each call.
        var output: [JSONValue] {
            var items: [JSONValue] = []
            if !text.isEmpty || calls.isEmpty { items.append(messageItem(status: "completed", text: text)) }
            for (offset, call) in calls.enumerated() { items.append(callItem(call, offset: offset, status: "completed", arguments: call.arguments)) }
            return items
        }

        /// The response object.
        func document(status: String, id: String, output: [JSONValue]? = nil) -> JSONValue {
            let incomplete = status == "completed" && finish == .length
            let usageJSON: JSONValue =
                status == "in_progress"
                ? .null
                : [
                    "input_tokens": .number(Double(usage.inputTokens)),
                    "input_tokens_details": ["cached_tokens": .number(Double(usage.cachedInputTokens))],
                    "output_tokens": .number(Double(usage.outputTokens)),
                    "output_tokens_details": ["reasoning_tokens": 0],
                    "total_tokens": .number(Double(usage.totalTokens)),
                ]
            return .object([
                "id": .string(id), "object": "response", "created_at": .number(Double(created)),
                "status": .string(incomplete ? "incomplete" : status),
                "incomplete_details": incomplete ? ["reason": "max_output_tokens"] : .null,
                "error": .null, "model": .string(model), "output": .array(output ?? self.output),
                "instructions": request.instructions.map(JSONValue.string) ?? .null,
                "max_output_tokens": request.maxOutputTokens.map { .number(Double($0)) } ?? .null,
                "parallel_tool_calls": .bool(request.parallelToolCalls),
                "previous_response_id": request.previousResponseID.map(JSONValue.string) ?? .null,
                "store": .bool(request.stores), "temperature": .number(request.temperature), "top_p": .number(request.topP),
                "text": request.textJSON, "tool_choice": request.toolChoiceJSON, "tools": .array(request.toolsJSON),
                "truncation": "disabled", "metadata": request.metadata, "usage": usageJSON, "user": .null,
                "reasoning": ["effort": .null, "summary": .null],
            ])
        }
    }
}
