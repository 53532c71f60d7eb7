import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import Synchronization

/// Chat Completions with streaming (server-sent events), images as content parts, JSON-schema
/// structured output, function calling (tools) and usage. With a base URL this is also the client for any
/// OpenAI-compatible server: llama.cpp's server, vLLM, LM Studio, `parley serve`.
public struct OpenAILanguageModel: LanguageModelProvider {
    /// Settings of the client.
    public struct Configuration: Sendable, Equatable {
        /// E.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`.
        public var baseURL: String
        /// The key; optional for self-hosted servers.
        public var apiKey: String?
        public var model: String
        public var timeouts: HTTPTimeouts
        /// The name in logs and routing, e.g. "openai" or "vllm".
        public var name: String
        /// Whether the server runs on this machine (private requests may go to it).
        public var isLocal: Bool
        /// Whether the model reads images.
        public var supportsImages: Bool
        /// Whether the server follows a JSON schema given as `response_format` (OpenAI, the
        /// llama.cpp server, vLLM and LM Studio do).
        public var supportsJSONSchema: Bool
        /// Whether the server calls functions given as `tools` (OpenAI, vLLM, LM Studio and the
        /// llama.cpp server started with `--jinja` do).
        public var supportsTools: Bool
        /// The model's context window in tokens, when known.
        public var contextTokens: Int?
        /// How long ``OpenAILanguageModel/availability()`` waits for a self-hosted server's
        /// `/models` (short, so a dead server is passed over quickly).
        public var probeTimeouts: HTTPTimeouts = .probe

        public static let defaultBaseURL = "https://api.openai.com/v1"

        /// Creates a configuration.
        public init(
            baseURL: String = Self.defaultBaseURL, apiKey: String? = nil, model: String = "gpt-4o-mini",
            timeouts: HTTPTimeouts = HTTPTimeouts(), name: String = "openai", isLocal: Bool? = nil, supportsImages: Bool = true,
            supportsJSONSchema: Bool = true, supportsTools: Bool = true, contextTokens: Int? = nil
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.model = model
            self.timeouts = timeouts
            self.name = name
            self.isLocal = isLocal ?? Self.isLoopback(baseURL)
            self.supportsImages = supportsImages
            self.supportsJSONSchema = supportsJSONSchema
            self.supportsTools = supportsTools
            self.contextTokens = contextTokens
        }

        /// From `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `OPENAI_MODEL`.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            Configuration(
                baseURL: environmentValue("OPENAI_BASE_URL", in: environment) ?? defaultBaseURL,
                apiKey: environmentValue("OPENAI_API_KEY", in: environment),
                model: environmentValue("OPENAI_MODEL", in: environment) ?? "gpt-4o-mini")
        }

        /// Whether a key is needed: only the official endpoint requires one.
        var requiresKey: Bool { baseURL.hasPrefix(Self.defaultBaseURL) }

        static func isLoopback(_ url: String) -> Bool {
            guard let host = URL(string: url)?.host else { return false }
            return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
        }
    }

    public let configuration: Configuration
    public let identity: ProviderIdentity
    /// Images, JSON schema and tools as configured (all on by default).
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(
            images: configuration.supportsImages, jsonSchema: configuration.supportsJSONSchema,
            tools: configuration.supportsTools, contextTokens: configuration.contextTokens)
    }
    let call: HTTPCall
    /// Where relayed requests go when the server is plain `http://` (see ``relay(_:streams:)``).
    let plainTarget: PlainTarget?

    /// Whether the server is plain `http://`: its whole answers can be relayed on an event
    /// loop (``relayWhole(_:firstByte:on:then:)``).
    public var relaysOnEventLoop: Bool { plainTarget != nil }

    /// Creates the provider.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: configuration.name, model: configuration.model, isLocal: configuration.isLocal)
        self.call = HTTPCall(provider: configuration.name, timeouts: configuration.timeouts)
        // The plain client sends header fields unchecked: a key that could not be one (a line
        // break in it) takes the client that checks them, and fails there.
        let sendable = configuration.apiKey?.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F } ?? true
        self.plainTarget = sendable ? PlainTarget(join(configuration.baseURL, "/chat/completions")) : nil
    }

    public func availability() async -> Availability {
        await openAICompatibleAvailability(
            baseURL: configuration.baseURL, apiKey: configuration.apiKey, name: configuration.name,
            timeouts: configuration.probeTimeouts)
    }

    var authHeaders: [(String, String)] {
        configuration.apiKey.map { [("authorization", "Bearer \($0)")] } ?? []
    }

    /// Streams the reply; the model's tool calls are checked against the request's tools (see
    /// ``ToolCallError``), and arguments that break a tool's schema are sent back once for
    /// correction.
    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let model = self
        return ToolCallGate.checked(request, provider: configuration.name) { model.completeUnchecked($0) }
    }

    /// The reply to `request` as the server sends it, tool calls unchecked.
    func completeUnchecked(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let call = self.call
        let body = ChatBody(request, model: configuration.model, sendsTools: configuration.supportsTools)
        let url = join(configuration.baseURL, "/chat/completions")
        let headers = authHeaders + [("accept", "text/event-stream")]
        let provider = configuration.name
        let needsKey = configuration.requiresKey && configuration.apiKey == nil
        return .producing { output in
            try checkCapabilities(for: request)
            if needsKey { throw ProviderError.unavailable(provider: provider, .missingKey(variable: "OPENAI_API_KEY")) }
            let response = try await call.send(try call.request(url, headers: headers, json: body))
            try await Self.read(
                contentType: response.headers.first(name: "content-type"), body: call.chunks(response),
                provider: provider, into: output)
        }
    }

    /// Reads a Chat Completions response into events: a stream of server-sent events, or the
    /// whole completion from a server that ignores `stream`.
    static func read(
        contentType: String?, body: AsyncThrowingStream<ByteBuffer, any Error>, provider: String,
        into output: AsyncThrowingStream<ChatEvent, any Error>.Continuation
    ) async throws {
        // Some OpenAI-compatible servers ignore `stream` and answer with the whole completion.
        if contentType?.lowercased().hasPrefix("application/json") == true {
            var collected = ByteBuffer()
            for try await var part in body {
                guard collected.readableBytes + part.readableBytes <= 64 * 1024 * 1024 else {
                    throw HTTPProviderError(provider: provider, kind: .malformedResponse, message: "the completion is larger than 64 MB")
                }
                collected.writeBuffer(&part)
            }
            let data = Data(collected.readableBytesView)
            let whole: WholeCompletion
            do {
                whole = try JSONDecoder().decode(WholeCompletion.self, from: data)
            } catch {
                throw HTTPProviderError(
                    provider: provider, kind: .malformedResponse,
                    message: "unreadable completion: \(String(decoding: data.prefix(200), as: UTF8.self))")
            }
            let choice = whole.choices?.first
            if let text = choice?.message?.content, !text.isEmpty { output.yield(.text(text)) }
            let calls = (choice?.message?.tool_calls ?? []).map { call in
                ToolCall(id: call.id ?? ToolCall.newID(), name: call.function?.name ?? "", arguments: call.function?.arguments?.text ?? "")
            }
            for call in calls { output.yield(.toolCall(call)) }
            let usage = whole.usage?.usage ?? Usage()
            output.yield(.finished(calls.isEmpty ? finishReason(choice?.finish_reason) : .toolCalls, usage))
            return
        }
        var parser = SSEParser()
        var usage = Usage()
        var finish: FinishReason?
        var calls = ToolCallAssembler()
        var lastIndex: Int?
        for try await buffer in body {
            for event in parser.feed(buffer.readableBytesView) {
                if event.data == "[DONE]" {
                    let whole = calls.finish()
                    for call in whole { output.yield(.toolCall(call)) }
                    output.yield(.finished(whole.isEmpty ? finish ?? .stop : .toolCalls, usage))
                    return
                }
                let chunk: StreamChunk
                do {
                    chunk = try JSONDecoder().decode(StreamChunk.self, from: Data(event.data.utf8))
                } catch {
                    throw HTTPProviderError(provider: provider, kind: .malformedResponse, message: "unreadable stream event: \(event.data.prefix(200))")
                }
                if let error = chunk.error {
                    throw HTTPProviderError(provider: provider, kind: .server(status: 500), message: error.message ?? "error in stream")
                }
                for choice in chunk.choices ?? [] {
                    if let text = choice.delta?.content, !text.isEmpty { output.yield(.text(text)) }
                    for piece in choice.delta?.tool_calls ?? [] {
                        // A piece without an index (some compatible servers) starts a call when
                        // it has an id, else continues the last one.
                        let index: Int
                        if let given = piece.index {
                            index = given
                        } else if piece.id == nil, let last = lastIndex {
                            index = last
                        } else {
                            index = (lastIndex ?? -1) + 1
                        }
                        lastIndex = index
                        output.yield(
                            .toolCallDelta(
                                calls.add(
                                    index: index, id: piece.id, name: piece.function?.name,
                                    arguments: piece.function?.arguments)))
                    }
                    if let reason = choice.finish_reason { finish = finishReason(reason) }
                }
                if let reported = chunk.usage { usage = reported.usage }
            }
        }
        // A stream its consumer gave up on ends early because of that: a cancellation, not a fault.
        try Task.checkCancellation()
        throw HTTPProviderError(provider: provider, kind: .malformedResponse, message: "the stream ended before [DONE]")
    }

    /// A `finish_reason` as Parley's.
    static func finishReason(_ reason: String?) -> FinishReason {
        switch reason {
        case "length": .length
        case "tool_calls", "function_call": .toolCalls
        default: .stop
        }
    }

    // MARK: Wire format

    struct ChatBody: Encodable {
        struct Message: Encodable {
            var role: String
            /// `nil` only for an assistant message that calls tools and wrote nothing (sent as `null`).
            var content: Content?
            var tool_calls: [WireToolCall]?
            var tool_call_id: String?

            enum CodingKeys: String, CodingKey { case role, content, tool_calls, tool_call_id }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(role, forKey: .role)
                if let content { try container.encode(content, forKey: .content) } else { try container.encodeNil(forKey: .content) }
                try container.encodeIfPresent(tool_calls, forKey: .tool_calls)
                try container.encodeIfPresent(tool_call_id, forKey: .tool_call_id)
            }
        }

        /// A call in an assistant message of the history.
        struct WireToolCall: Encodable {
            struct Function: Encodable {
                var name: String
                /// The arguments as JSON text, as the API documents.
                var arguments: String
            }
            var id: String
            var type = "function"
            var function: Function
        }

        /// A function the model may call.
        struct Tool: Encodable {
            struct Function: Encodable {
                var name: String
                var description: String?
                var parameters: JSONValue
                var strict: Bool?
            }
            var type = "function"
            var function: Function
        }

        /// `"auto"`, `"none"`, `"required"` or `{"type":"function","function":{"name":…}}`.
        enum Choice: Encodable {
            case mode(String)
            case function(String)

            struct Named: Encodable {
                struct Function: Encodable { var name: String }
                var type = "function"
                var function: Function
            }

            init(_ choice: ToolChoice) {
                switch choice {
                case .auto: self = .mode("auto")
                case .none: self = .mode("none")
                case .required: self = .mode("required")
                case .function(let name): self = .function(name)
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .mode(let mode): try container.encode(mode)
                case .function(let name): try container.encode(Named(function: .init(name: name)))
                }
            }
        }

        enum Content: Encodable {
            case text(String)
            case parts([Part])

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .text(let text): try container.encode(text)
                case .parts(let parts): try container.encode(parts)
                }
            }
        }

        struct Part: Encodable {
            struct ImageURL: Encodable { var url: String }
            var type: String
            var text: String?
            var image_url: ImageURL?
        }

        struct StreamOptions: Encodable { var include_usage = true }

        struct ResponseFormat: Encodable {
            struct Schema: Encodable {
                var name: String
                var schema: JSONValue
                var strict: Bool
            }
            var type = "json_schema"
            var json_schema: Schema
        }

        var model: String
        var messages: [Message]
        var stream = true
        var stream_options = StreamOptions()
        var temperature: Double
        var top_p: Double
        var max_tokens: Int
        var seed: UInt32?
        var stop: [String]?
        var response_format: ResponseFormat?
        var tools: [Tool]?
        var tool_choice: Choice?
        var parallel_tool_calls: Bool?

        /// The body for `request`; `sendsTools` is false for a server configured without tools
        /// (a request that offers tools never gets here then).
        init(_ request: ChatRequest, model: String, sendsTools: Bool = true) {
            self.model = model
            messages = request.messages.map { message in
                if message.role == .tool {
                    return Message(role: "tool", content: .text(message.text), tool_call_id: message.toolCallID ?? "")
                }
                if !message.toolCalls.isEmpty {
                    let calls = message.toolCalls.map { call in
                        WireToolCall(id: call.id, function: .init(name: call.name, arguments: call.arguments.isEmpty ? "{}" : call.arguments))
                    }
                    return Message(role: message.role.rawValue, content: message.text.isEmpty ? nil : .text(message.text), tool_calls: calls)
                }
                let content: Content =
                    message.hasImages
                    ? .parts(
                        message.parts.map { part in
                            switch part {
                            case .text(let text): return Part(type: "text", text: text)
                            case .image(let data, let mimeType):
                                return Part(type: "image_url", image_url: .init(url: "data:\(mimeType);base64,\(data.base64EncodedString())"))
                            }
                        })
                    : .text(message.text)
                return Message(role: message.role.rawValue, content: content)
            }
            temperature = request.sampling.temperature
            top_p = request.sampling.topP
            max_tokens = request.sampling.maxTokens
            seed = request.sampling.seed
            stop = request.sampling.stop.isEmpty ? nil : request.sampling.stop
            response_format = request.responseSchema.map {
                ResponseFormat(json_schema: .init(name: $0.name, schema: $0.schema, strict: $0.strict))
            }
            if sendsTools, !request.tools.isEmpty {
                tools = request.tools.map { tool in
                    Tool(function: .init(name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict))
                }
                tool_choice = Choice(request.toolChoice)
                parallel_tool_calls = request.parallelToolCalls
            }
        }
    }

    struct StreamChunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable {
                var content: String?
                var tool_calls: [ToolCallPiece]?
            }
            var delta: Delta?
            var finish_reason: String?
        }

        struct ReportedUsage: Decodable {
            struct Details: Decodable { var cached_tokens: Int? }
            var prompt_tokens: Int?
            var completion_tokens: Int?
            var prompt_tokens_details: Details?

            var usage: Usage {
                Usage(
                    inputTokens: prompt_tokens ?? 0, cachedInputTokens: prompt_tokens_details?.cached_tokens ?? 0,
                    outputTokens: completion_tokens ?? 0)
            }
        }

        struct StreamError: Decodable { var message: String? }

        /// A piece of a streamed call: id and name in the first, arguments in fragments.
        struct ToolCallPiece: Decodable {
            struct Function: Decodable {
                var name: String?
                var arguments: String?
            }
            var index: Int?
            var id: String?
            var function: Function?
        }

        var choices: [Choice]?
        var usage: ReportedUsage?
        var error: StreamError?
    }

    /// A completion answered whole (by a server that ignores `stream`).
    struct WholeCompletion: Decodable {
        struct Choice: Decodable {
            struct Message: Decodable {
                var content: String?
                var tool_calls: [Call]?
            }
            struct Call: Decodable {
                struct Function: Decodable {
                    var name: String?
                    /// JSON text as documented; an object from servers that send one.
                    var arguments: Arguments?
                }
                var id: String?
                var function: Function?
            }
            /// A call's arguments: the documented JSON text, or a JSON value.
            enum Arguments: Decodable {
                case text(String)
                case value(JSONValue)

                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let text = try? container.decode(String.self) { self = .text(text) } else { self = .value(try container.decode(JSONValue.self)) }
                }

                var text: String {
                    switch self {
                    case .text(let text): text
                    case .value(let value): value.text
                    }
                }
            }
            var message: Message?
            var finish_reason: String?
        }

        var choices: [Choice]?
        var usage: StreamChunk.ReportedUsage?
    }
}

/// Availability of an OpenAI-compatible endpoint: the official API needs a key (and is not
/// probed); a self-hosted server is probed with `GET /models`, and any HTTP answer but an
/// authentication failure counts as up. A server found up is trusted for
/// ``ProbedServers/trusted`` without a new probe: a chain asks before every request, and a
/// server that goes down meanwhile fails the request itself, which rests it just the same.
func openAICompatibleAvailability(baseURL: String, apiKey: String?, name: String, timeouts: HTTPTimeouts = .probe) async -> Availability {
    if baseURL.hasPrefix(OpenAILanguageModel.Configuration.defaultBaseURL) {
        return apiKey == nil ? .missingKey(variable: "OPENAI_API_KEY") : .ready
    }
    let server = "\(baseURL) \(apiKey ?? "")"
    if let until = ProbedServers.ready.withLock({ $0[server] }), ContinuousClock.now < until { return .ready }
    let availability = await probeOpenAICompatible(baseURL: baseURL, apiKey: apiKey, name: name, timeouts: timeouts)
    if availability.isReady { ProbedServers.ready.withLock { $0[server] = ContinuousClock.now + ProbedServers.trusted } }
    return availability
}

/// `GET /models` on a self-hosted server: any HTTP answer but an authentication failure is up.
private func probeOpenAICompatible(baseURL: String, apiKey: String?, name: String, timeouts: HTTPTimeouts) async -> Availability {
    let probe = HTTPCall(provider: name, timeouts: timeouts)
    do {
        let headers = apiKey.map { [("authorization", "Bearer \($0)")] } ?? []
        _ = try await probe.data(try probe.request(join(baseURL, "/models"), method: .GET, headers: headers), limit: 1 << 20)
        return .ready
    } catch let error as HTTPProviderError {
        switch error.kind {
        case .authentication: return .unsupported(reason: error.description)
        case .badRequest, .server, .rateLimited: return .ready
        case .transport, .timeout, .malformedResponse: return .serverUnreachable(url: baseURL, reason: error.description)
        }
    } catch {
        return .serverUnreachable(url: baseURL, reason: "\(error)")
    }
}

/// Self-hosted servers found up recently, by base URL and key.
enum ProbedServers {
    static let ready = Mutex<[String: ContinuousClock.Instant]>([:])
    /// How long a successful probe stands.
    static let trusted = Duration.seconds(5)
}
