import Foundation
import ParleyCore

/// The body of `POST /v1/responses` as OpenAI documents the Responses API, read into what a
/// model is asked. Fields Parley cannot honour are refused with a 400 naming them.
struct ResponsesRequest: Sendable {
    /// One item of `input`, in order.
    enum Item: Sendable, Equatable {
        /// A message (user, assistant, system or developer).
        case message(ChatMessage)
        /// An earlier call of the model's (`function_call`), sent back with the history.
        case call(ToolCall)
        /// A function's result (`function_call_output`).
        case output(callID: String, output: String)
    }

    var model: String?
    var input: [Item]
    var instructions: String?
    var streams: Bool
    /// Whether the response is kept (and can be continued, retrieved and deleted): OpenAI's
    /// default is yes.
    var stores: Bool
    var previousResponseID: String?
    var tools: [ToolDefinition]
    /// `tools` as sent, echoed in the response.
    var toolsJSON: [JSONValue]
    var toolChoice: ToolChoice
    var toolChoiceJSON: JSONValue
    var parallelToolCalls: Bool
    var sampling: SamplingOptions
    var maxOutputTokens: Int?
    var schema: ResponseSchema?
    /// `text` as sent (its `format`), echoed.
    var textJSON: JSONValue
    var metadata: JSONValue
    var temperature: Double
    var topP: Double
    /// `parley`: `{"builtin_tools": true}` lets the model look things up with the server's
    /// tools (the built-ins and those of `--mcp` servers) before it answers, as in a chat
    /// completion; only calls to the client's own `tools` come back.
    var builtinTools = false

    /// The fields the server reads; any other is refused, so nothing is silently ignored.
    static let known: Set<String> = [
        "model", "input", "instructions", "stream", "store", "previous_response_id", "tools", "tool_choice", "parallel_tool_calls",
        "max_output_tokens", "temperature", "top_p", "text", "metadata", "user", "truncation", "reasoning", "include", "service_tier",
        "safety_identifier", "prompt_cache_key", "stream_options", "parley",
    ]

    /// Reads `body`; a 400 in OpenAI's shape for what cannot be served.
    static func parse(_ body: JSONValue) throws(OpenAIError) -> ResponsesRequest {
        guard let fields = body.object else { throw .invalidRequest("The body must be a JSON object.") }
        for key in fields.keys.sorted() where !known.contains(key) {
            throw .invalidRequest("Unsupported parameter '\(key.prefix(64))'.", param: key, code: "unsupported_parameter")
        }
        let model = fields["model"]?.string
        let instructions = try optionalString(fields["instructions"], "instructions")
        let streams = try optionalBool(fields["stream"], "stream") ?? false
        let stores = try optionalBool(fields["store"], "store") ?? true
        let previous = try optionalString(fields["previous_response_id"], "previous_response_id")
        let toolsJSON = try tools(fields["tools"])
        let definitions = try ChatCompletionRequest.definitions(toolsJSON)
        let choiceJSON = fields["tool_choice"] ?? "auto"
        let choice = try ChatCompletionRequest.choice(nested(choice: choiceJSON), among: definitions)
        let parallel = try optionalBool(fields["parallel_tool_calls"], "parallel_tool_calls") ?? true
        var sampling = SamplingOptions(temperature: 1, topP: 1, maxTokens: ChatCompletionRequest.defaultMaxTokens)
        if let value = fields["temperature"], !value.isNull {
            guard let temperature = value.number, (0...2).contains(temperature) else {
                throw .invalidRequest("'temperature' must be a number between 0 and 2.", param: "temperature")
            }
            sampling.temperature = temperature
        }
        if let value = fields["top_p"], !value.isNull {
            guard let topP = value.number, topP > 0, topP <= 1 else { throw .invalidRequest("'top_p' must be above 0 and at most 1.", param: "top_p") }
            sampling.topP = topP
        }
        var maxOutput: Int?
        if let value = fields["max_output_tokens"], !value.isNull {
            guard let limit = value.integer(in: 16...1_000_000) else {
                throw .invalidRequest("'max_output_tokens' must be a whole number from 16 to 1000000.", param: "max_output_tokens")
            }
            maxOutput = limit
            sampling.maxTokens = limit
        }
        let textJSON = fields["text"] ?? .object(["format": .object(["type": "text"])])
        let schema = try self.schema(textJSON)
        let metadata = fields["metadata"] ?? .object([:])
        guard metadata.object != nil || metadata.isNull else { throw .invalidRequest("'metadata' must be an object.", param: "metadata") }
        let items = try input(fields["input"])
        var builtinTools = false
        if let parley = fields["parley"], !parley.isNull {
            guard let options = parley.object, options.keys.allSatisfy({ $0 == "builtin_tools" }) else {
                throw .invalidRequest("'parley' must be an object with only 'builtin_tools' (true or false).", param: "parley")
            }
            if let value = options["builtin_tools"] {
                guard let flag = value.bool else { throw .invalidRequest("'parley.builtin_tools' must be true or false.", param: "parley.builtin_tools") }
                builtinTools = flag
            }
        }
        var request = ResponsesRequest(
            model: model, input: items, instructions: instructions, streams: streams, stores: stores,
            previousResponseID: previous, tools: definitions, toolsJSON: toolsJSON, toolChoice: choice,
            toolChoiceJSON: choiceJSON, parallelToolCalls: parallel, sampling: sampling, maxOutputTokens: maxOutput,
            schema: schema, textJSON: textJSON, metadata: metadata.isNull ? .object([:]) : metadata,
            temperature: sampling.temperature, topP: sampling.topP)
        request.builtinTools = builtinTools
        return request
    }

    // MARK: - input

    /// `input`: a string (one user message) or an array of items.
    private static func input(_ value: JSONValue?) throws(OpenAIError) -> [Item] {
        guard let value, !value.isNull else { throw .invalidRequest("'input' is required: a string or an array of items.", param: "input") }
        if let text = value.string { return [.message(.user(text))] }
        guard let array = value.array, !array.isEmpty else {
            throw .invalidRequest("'input' must be a string or a non-empty array of items.", param: "input")
        }
        var items: [Item] = []
        for (index, element) in array.enumerated() {
            let param = "input[\(index)]"
            guard let item = element.object else { throw .invalidRequest("Each input item must be an object.", param: param) }
            let type = item["type"]?.string ?? (item["role"] != nil ? "message" : "")
            switch type {
            case "message":
                items.append(.message(try message(item, param: param)))
            case "function_call":
                guard let callID = item["call_id"]?.string, !callID.isEmpty, let name = item["name"]?.string, !name.isEmpty else {
                    throw .invalidRequest("A function_call item needs 'call_id' and 'name'.", param: param)
                }
                items.append(.call(ToolCall(id: callID, name: name, arguments: item["arguments"]?.string ?? "{}")))
            case "function_call_output":
                guard let callID = item["call_id"]?.string, !callID.isEmpty else {
                    throw .invalidRequest("A function_call_output item needs 'call_id', the call it answers.", param: param + ".call_id")
                }
                let output = try outputText(item["output"], param: param + ".output")
                guard output.utf8.count <= ChatCompletionRequest.toolResultLimit else {
                    throw .invalidRequest(
                        "The output is \(output.utf8.count) bytes; at most \(ChatCompletionRequest.toolResultLimit) are accepted.",
                        param: param + ".output")
                }
                items.append(.output(callID: callID, output: output))
            default:
                throw .invalidRequest(
                    "Unsupported input item type '\(type.prefix(40))': use message, function_call or function_call_output.",
                    param: param + ".type")
            }
        }
        return items
    }

    private static func message(_ item: JSONObject, param: String) throws(OpenAIError) -> ChatMessage {
        let role: ChatMessage.Role
        switch item["role"]?.string {
        case "user": role = .user
        case "assistant": role = .assistant
        case "system", "developer": role = .system
        default: throw .invalidRequest("A message needs 'role': user, assistant, system or developer.", param: param + ".role")
        }
        guard let content = item["content"] else { throw .invalidRequest("A message needs 'content'.", param: param + ".content") }
        if let text = content.string { return ChatMessage(role: role, text: text) }
        guard let parts = content.array else { throw .invalidRequest("'content' must be a string or an array of parts.", param: param + ".content") }
        var converted: [ChatMessage.Part] = []
        for (position, part) in parts.enumerated() {
            let partParam = "\(param).content[\(position)]"
            switch part["type"]?.string {
            case "input_text", "output_text", "text":
                guard let text = part["text"]?.string else { throw .invalidRequest("A text part needs 'text'.", param: partParam) }
                converted.append(.text(text))
            case "input_image":
                guard role == .user else { throw .invalidRequest("Only user messages carry images.", param: partParam) }
                guard let url = part["image_url"]?.string else {
                    throw .invalidRequest("An input_image needs 'image_url' as a data: URL (file_id is not supported).", param: partParam)
                }
                converted.append(try ChatCompletionRequest.image(fromDataURL: url, param: partParam))
            case "refusal":
                converted.append(.text(part["refusal"]?.string ?? ""))
            default:
                throw .invalidRequest(
                    "Unsupported content part type '\((part["type"]?.string ?? "").prefix(40))': use input_text, output_text or input_image.",
                    param: partParam)
            }
        }
        return ChatMessage(role: role, parts: converted)
    }

    /// A function's output: a string, or an array of text parts.
    private static func outputText(_ value: JSONValue?, param: String) throws(OpenAIError) -> String {
        if let text = value?.string { return text }
        if let parts = value?.array {
            return parts.compactMap { $0["text"]?.string }.joined()
        }
        throw .invalidRequest("'output' must be a string.", param: param)
    }

    // MARK: - tools and formats

    private static func tools(_ value: JSONValue?) throws(OpenAIError) -> [JSONValue] {
        guard let value, !value.isNull else { return [] }
        guard let array = value.array else { throw .invalidRequest("'tools' must be an array of function tools.", param: "tools") }
        for (index, tool) in array.enumerated() where tool["type"]?.string != "function" {
            throw .invalidRequest("Only function tools are supported (got '\((tool["type"]?.string ?? "").prefix(40))').", param: "tools[\(index)].type")
        }
        return array
    }

    /// A Responses `tool_choice` (`{"type": "function", "name": …}`) in the Chat Completions shape.
    private static func nested(choice: JSONValue) -> JSONValue {
        guard let fields = choice.object, fields["type"]?.string == "function", let name = fields["name"] else { return choice }
        return .object(["type": "function", "function": .object(["name": name])])
    }

    /// `text.format`: `text`, or `json_schema` with `name`, `schema` and `strict`.
    private static func schema(_ text: JSONValue) throws(OpenAIError) -> ResponseSchema? {
        guard let format = text["format"], !format.isNull else { return nil }
        switch format["type"]?.string {
        case "text", nil:
            return nil
        case "json_schema":
            guard let schema = format["schema"], schema.object != nil else {
                throw .invalidRequest("'text.format.schema' is required: a JSON Schema object.", param: "text.format.schema")
            }
            return ResponseSchema(name: format["name"]?.string ?? "response", schema: schema, strict: format["strict"]?.bool ?? true)
        case "json_object":
            throw .invalidRequest("'json_object' is not supported: use json_schema with a schema.", param: "text.format.type")
        default:
            throw .invalidRequest("Invalid 'text.format.type': use text or json_schema.", param: "text.format.type")
        }
    }

    private static func optionalString(_ value: JSONValue?, _ name: String) throws(OpenAIError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.string else { throw .invalidRequest("'\(name)' must be a string.", param: name) }
        return text
    }

    private static func optionalBool(_ value: JSONValue?, _ name: String) throws(OpenAIError) -> Bool? {
        guard let value, !value.isNull else { return nil }
        guard let flag = value.bool else { throw .invalidRequest("'\(name)' must be true or false.", param: name) }
        return flag
    }
}
