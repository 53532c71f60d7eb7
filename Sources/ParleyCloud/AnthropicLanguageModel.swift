import AsyncHTTPClient
import Foundation
import ParleyCore

/// Anthropic's Messages API with streaming: the system prompt as a top-level field, images as
/// base64 content blocks, and the events `message_start`, `content_block_start`,
/// `content_block_delta`, `content_block_stop`, `message_delta`, `message_stop`, `ping` and
/// `error`.
///
/// Structured output goes through a forced tool: the response schema becomes the only tool's
/// `input_schema`, `tool_choice` names it, and the tool input streamed as `input_json_delta`
/// is the reply's text. A schema whose root is not an object is wrapped in one (the API
/// requires an object) and unwrapped when the reply ends.
///
/// Tools are sent as `tools` with `input_schema`; calls come back as `tool_use` blocks whose
/// input streams as `input_json_delta`. A request with both a response schema and tools
/// offers both: the model calls one of the tools or the answer tool (named so as not to clash
/// with the request's tools).
public struct AnthropicLanguageModel: LanguageModelProvider {
    /// Settings of the client.
    public struct Configuration: Sendable, Equatable {
        public var baseURL: String
        public var apiKey: String?
        public var model: String
        public var timeouts: HTTPTimeouts
        /// The API version header value.
        public var version: String

        public static let defaultBaseURL = "https://api.anthropic.com"

        /// Creates a configuration.
        public init(
            baseURL: String = Self.defaultBaseURL, apiKey: String? = nil, model: String = "claude-3-5-haiku-latest",
            timeouts: HTTPTimeouts = HTTPTimeouts(), version: String = "2023-06-01"
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.model = model
            self.timeouts = timeouts
            self.version = version
        }

        /// From `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` and `ANTHROPIC_MODEL`.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            Configuration(
                baseURL: environmentValue("ANTHROPIC_BASE_URL", in: environment) ?? defaultBaseURL,
                apiKey: environmentValue("ANTHROPIC_API_KEY", in: environment),
                model: environmentValue("ANTHROPIC_MODEL", in: environment) ?? "claude-3-5-haiku-latest")
        }
    }

    public let configuration: Configuration
    public let identity: ProviderIdentity
    /// Images, JSON schemas (through a forced tool), and tools.
    public let capabilities = LanguageModelCapabilities(images: true, jsonSchema: true, tools: true)
    private let call: HTTPCall

    /// Creates the provider.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: "anthropic", model: configuration.model, isLocal: false)
        self.call = HTTPCall(provider: "anthropic", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        configuration.apiKey == nil ? .missingKey(variable: "ANTHROPIC_API_KEY") : .ready
    }

    /// Streams the reply; the model's tool calls are checked against the request's tools (see
    /// ``ToolCallError``), and arguments that break a tool's schema are sent back once for
    /// correction.
    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let model = self
        return ToolCallGate.checked(request, provider: "anthropic") { model.completeUnchecked($0) }
    }

    /// What a content block of the reply holds.
    private enum BlockKind {
        /// Text.
        case text
        /// The input of the forced tool that carries a structured reply.
        case answer
        /// A call of one of the request's tools.
        case call
    }

    /// The reply to `request` as the server sends it, tool calls unchecked.
    func completeUnchecked(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let call = self.call
        let configuration = self.configuration
        let body = MessagesBody(request, model: configuration.model)
        return .producing { output in
            try checkCapabilities(for: request)
            guard let key = configuration.apiKey else {
                throw ProviderError.unavailable(provider: "anthropic", .missingKey(variable: "ANTHROPIC_API_KEY"))
            }
            let headers = [("x-api-key", key), ("anthropic-version", configuration.version), ("accept", "text/event-stream")]
            let response = try await call.send(try call.request(join(configuration.baseURL, "/v1/messages"), headers: headers, json: body))
            var parser = SSEParser()
            var usage = Usage()
            var stopReason: String?
            // A structured reply comes as the answer tool's input; text beside it is dropped.
            let structured = body.answerTool != nil
            // A wrapped schema's input is held until the end, then its one member is the reply.
            let wrapped = structured && body.wrapsValue
            var held = ""
            var kinds: [Int: BlockKind] = [:]
            var calls = ToolCallAssembler()
            for try await buffer in call.chunks(response) {
                for event in parser.feed(buffer.readableBytesView) {
                    let payload: StreamEvent
                    do {
                        payload = try JSONDecoder().decode(StreamEvent.self, from: Data(event.data.utf8))
                    } catch {
                        throw HTTPProviderError(provider: "anthropic", kind: .malformedResponse, message: "unreadable \(event.type) event")
                    }
                    let index = payload.index ?? 0
                    switch event.type {
                    case "message_start":
                        usage.inputTokens = (payload.message?.usage?.input_tokens ?? 0) + (payload.message?.usage?.cache_read_input_tokens ?? 0)
                        usage.cachedInputTokens = payload.message?.usage?.cache_read_input_tokens ?? 0
                        usage.outputTokens = payload.message?.usage?.output_tokens ?? 0
                    case "content_block_start":
                        guard let block = payload.content_block, block.type == "tool_use" else {
                            kinds[index] = .text
                            break
                        }
                        if structured && block.name == body.answerTool {
                            kinds[index] = .answer
                        } else {
                            kinds[index] = .call
                            // The block's `input` is empty here; it streams as input_json_delta.
                            output.yield(.toolCallDelta(calls.add(index: index, id: block.id, name: block.name, arguments: nil)))
                        }
                    case "content_block_delta":
                        if payload.delta?.type == "text_delta", !structured, let text = payload.delta?.text, !text.isEmpty {
                            output.yield(.text(text))
                        } else if payload.delta?.type == "input_json_delta", let json = payload.delta?.partial_json, !json.isEmpty {
                            switch kinds[index] ?? (structured ? .answer : .text) {
                            case .answer: if wrapped { held += json } else { output.yield(.text(json)) }
                            case .call: output.yield(.toolCallDelta(calls.add(index: index, id: nil, name: nil, arguments: json)))
                            case .text: break
                            }
                        }
                    case "message_delta":
                        if let tokens = payload.usage?.output_tokens { usage.outputTokens = tokens }
                        if let reason = payload.delta?.stop_reason { stopReason = reason }
                    case "message_stop":
                        if wrapped {
                            guard let value = try? JSONValue(parsing: held)[MessagesBody.wrapperMember] else {
                                throw HTTPProviderError(
                                    provider: "anthropic", kind: .malformedResponse, message: "the tool input has no \(MessagesBody.wrapperMember) member")
                            }
                            output.yield(.text(value.text))
                        }
                        // A call without parameters streams no input: its arguments are an empty object.
                        let whole = calls.finish().map { call in
                            call.arguments.isEmpty ? ToolCall(id: call.id, name: call.name, arguments: "{}") : call
                        }
                        for call in whole { output.yield(.toolCall(call)) }
                        let finish: FinishReason = whole.isEmpty ? (stopReason == "max_tokens" ? .length : .stop) : .toolCalls
                        output.yield(.finished(finish, usage))
                        return
                    case "error":
                        throw Self.streamError(payload.error)
                    default:
                        break  // ping, content_block_stop, and future events
                    }
                }
            }
            // A stream its consumer gave up on ends early because of that: a cancellation, not a fault.
            try Task.checkCancellation()
            throw HTTPProviderError(provider: "anthropic", kind: .malformedResponse, message: "the stream ended before message_stop")
        }
    }

    /// An `error` event mid-stream, mapped by its documented type.
    static func streamError(_ error: StreamEvent.ErrorBody?) -> HTTPProviderError {
        let message = error?.message ?? "error event"
        let kind: HTTPProviderError.Kind
        switch error?.type {
        case "overloaded_error": kind = .server(status: 529)
        case "rate_limit_error": kind = .rateLimited(retryAfter: nil)
        case "authentication_error": kind = .authentication(status: 401)
        case "permission_error": kind = .authentication(status: 403)
        case "invalid_request_error": kind = .badRequest(status: 400)
        default: kind = .server(status: 500)
        }
        return HTTPProviderError(provider: "anthropic", kind: kind, message: message)
    }

    // MARK: Wire format

    struct MessagesBody: Encodable {
        struct Message: Encodable {
            var role: String
            var content: [Block]
        }

        /// A content block: `text`, `image`, `tool_use` (a call in an assistant message) or
        /// `tool_result` (a tool's answer in a user message).
        struct Block: Encodable {
            struct Source: Encodable {
                var type = "base64"
                var media_type: String
                var data: String
            }
            var type: String
            var text: String?
            var source: Source?
            var id: String?
            var name: String?
            var input: JSONValue?
            var tool_use_id: String?
            var content: String?
            var is_error: Bool?
        }

        var model: String
        var max_tokens: Int
        var system: String?
        var messages: [Message]
        var stream = true
        var temperature: Double
        var top_p: Double?
        var top_k: Int?
        var stop_sequences: [String]?
        var tools: [Tool]?
        var tool_choice: ToolChoice?
        /// Whether the schema's root is not an object and was wrapped in one.
        var wrapsValue = false
        /// The name of the tool whose input is a structured reply, when the request has a
        /// response schema (a name no tool of the request has).
        var answerTool: String?

        struct Tool: Encodable {
            var name: String
            var description: String?
            var input_schema: JSONValue
        }

        /// `{"type":"auto"|"any"|"tool"|"none"}`, with `name` for `tool`.
        struct ToolChoice: Encodable {
            var type: String
            var name: String?
            var disable_parallel_tool_use: Bool?
        }

        /// The member that carries a wrapped value.
        static let wrapperMember = "value"

        enum CodingKeys: String, CodingKey {
            case model, max_tokens, system, messages, stream, temperature, top_p, top_k, stop_sequences, tools, tool_choice
        }

        init(_ request: ChatRequest, model: String) {
            self.model = model
            max_tokens = request.sampling.maxTokens
            let system = request.messages.filter { $0.role == .system }.map(\.text).joined(separator: "\n\n")
            self.system = system.isEmpty ? nil : system
            // The API wants alternating turns; merge neighbours of the same role (so the results
            // of one reply's calls go back together in one user message).
            var merged: [Message] = []
            for message in request.messages where message.role != .system {
                let role = message.role == .assistant ? "assistant" : "user"
                let blocks = Self.blocks(of: message)
                if merged.last?.role == role {
                    merged[merged.count - 1].content += blocks
                } else {
                    merged.append(Message(role: role, content: blocks))
                }
            }
            messages = merged
            temperature = min(1, request.sampling.temperature)
            top_k = request.sampling.topK > 0 ? request.sampling.topK : nil
            top_p = nil  // Anthropic advises setting temperature or top_p, not both
            stop_sequences = request.sampling.stop.isEmpty ? nil : request.sampling.stop
            let declared = request.tools.map { Tool(name: $0.name, description: $0.description, input_schema: $0.parameters) }
            if let response = request.responseSchema {
                var schema = response.schema
                if schema["type"]?.string != "object" {
                    wrapsValue = true
                    schema = .object([
                        "type": "object", "properties": .object([Self.wrapperMember: schema]),
                        "required": .array([.string(Self.wrapperMember)]),
                    ])
                }
                let answer = Self.unusedName(response.name, taken: Set(request.tools.map(\.name)))
                answerTool = answer
                tools =
                    declared + [
                        Tool(
                            name: answer, description: "Record the answer. Its input must follow the schema exactly.",
                            input_schema: schema)
                    ]
                // With tools the model may call, it must call one of them or the answer tool.
                switch request.offersTools ? request.toolChoice : .none {
                case .none: tool_choice = ToolChoice(type: "tool", name: answer)
                case .auto, .required: tool_choice = ToolChoice(type: "any")
                case .function(let name): tool_choice = ToolChoice(type: "tool", name: name)
                }
            } else if !declared.isEmpty {
                tools = declared
                switch request.toolChoice {
                case .auto: tool_choice = ToolChoice(type: "auto")
                case .none: tool_choice = ToolChoice(type: "none")
                case .required: tool_choice = ToolChoice(type: "any")
                case .function(let name): tool_choice = ToolChoice(type: "tool", name: name)
                }
            }
            if request.offersTools, !request.parallelToolCalls, tool_choice?.type != "none" {
                tool_choice?.disable_parallel_tool_use = true
            }
        }

        /// A message's content blocks: a tool's result as a `tool_result`, an assistant's calls
        /// as `tool_use` blocks after its text.
        static func blocks(of message: ChatMessage) -> [Block] {
            if message.role == .tool {
                return [
                    Block(
                        type: "tool_result", tool_use_id: message.toolCallID ?? "", content: message.text,
                        is_error: message.isToolError ? true : nil)
                ]
            }
            var blocks = message.parts.compactMap { part -> Block? in
                switch part {
                case .text(let text):
                    // The API refuses empty text blocks beside calls.
                    return text.isEmpty && !message.toolCalls.isEmpty ? nil : Block(type: "text", text: text)
                case .image(let data, let mimeType):
                    return Block(type: "image", source: .init(media_type: mimeType, data: data.base64EncodedString()))
                }
            }
            blocks += message.toolCalls.map { call in
                Block(type: "tool_use", id: call.id, name: call.name, input: call.parsedArguments ?? .object([:]))
            }
            return blocks
        }

        /// `name`, or `name_answer` (then with a number) when a declared tool has that name.
        static func unusedName(_ name: String, taken: Set<String>) -> String {
            guard taken.contains(name) else { return name }
            let base = String(name.prefix(48)) + "_answer"
            var candidate = base
            var number = 2
            while taken.contains(candidate) {
                candidate = base + String(number)
                number += 1
            }
            return candidate
        }
    }

    struct StreamEvent: Decodable {
        struct Message: Decodable { var usage: ReportedUsage? }
        struct ReportedUsage: Decodable {
            var input_tokens: Int?
            var output_tokens: Int?
            var cache_read_input_tokens: Int?
        }
        struct Delta: Decodable {
            var type: String?
            var text: String?
            var partial_json: String?
            var stop_reason: String?
        }
        struct ErrorBody: Decodable {
            var type: String?
            var message: String?
        }

        struct ContentBlock: Decodable {
            var type: String?
            var id: String?
            var name: String?
        }

        var type: String?
        var index: Int?
        var content_block: ContentBlock?
        var message: Message?
        var delta: Delta?
        var usage: ReportedUsage?
        var error: ErrorBody?
    }
}
