import AsyncHTTPClient
import Foundation
import Logging
import ParleyCore
import Synchronization

/// A self-hosted Ollama server through its native API: `/api/chat` streaming newline-delimited
/// JSON, and `/api/tags` for availability and the list of installed models.
///
/// Tools go as `tools` in OpenAI's function shape. Ollama has no tool choice: with
/// ``ToolChoice/none`` no tools are sent, and with a named function only that one is. Calls
/// come whole in a chunk's `message.tool_calls`, their arguments a JSON object and without ids
/// (Parley makes them).
public struct OllamaLanguageModel: LanguageModelProvider {
    /// Settings of the client.
    public struct Configuration: Sendable, Equatable {
        /// E.g. `http://127.0.0.1:11434`.
        public var host: String
        public var model: String
        public var timeouts: HTTPTimeouts
        /// Whether the model reads images (e.g. llava, llama3.2-vision).
        public var supportsImages: Bool
        /// Whether the model calls tools (e.g. llama3.1, llama3.2, qwen2.5; Ollama refuses
        /// `tools` for models whose template has none).
        public var supportsTools: Bool
        /// The context window (`num_ctx`) in tokens, when known.
        public var contextTokens: Int?
        /// Whether ``model`` is only a preference (no `OLLAMA_MODEL` was given): when it is not
        /// installed, the first installed chat model is used instead, with a warning naming it.
        public var usesInstalledModel = false
        /// How long ``OllamaLanguageModel/availability()`` and ``OllamaLanguageModel/listModels()``
        /// wait for `/api/tags` (short, so a dead server is passed over quickly).
        public var probeTimeouts: HTTPTimeouts = .probe

        public static let defaultHost = "http://127.0.0.1:11434"

        /// Creates a configuration.
        public init(
            host: String = Self.defaultHost, model: String = "llama3.2", timeouts: HTTPTimeouts = HTTPTimeouts(), supportsImages: Bool = false,
            supportsTools: Bool = true, contextTokens: Int? = nil
        ) {
            self.host = host.hasPrefix("http") ? host : "http://\(host)"
            self.model = model
            self.timeouts = timeouts
            self.supportsImages = supportsImages
            self.supportsTools = supportsTools
            self.contextTokens = contextTokens
        }

        /// From `OLLAMA_HOST` and `OLLAMA_MODEL`.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            let named = environmentValue("OLLAMA_MODEL", in: environment)
            var configuration = Configuration(host: environmentValue("OLLAMA_HOST", in: environment) ?? defaultHost, model: named ?? "llama3.2")
            configuration.usesInstalledModel = named == nil
            return configuration
        }
    }

    public let configuration: Configuration
    /// The model in use: the configured one, or the installed one chosen in its place.
    public var identity: ProviderIdentity {
        ProviderIdentity(
            name: "ollama", model: chosen.withLock { $0 } ?? configuration.model,
            isLocal: OpenAILanguageModel.Configuration.isLoopback(configuration.host))
    }
    /// The installed model used in place of the configured one (``Configuration/usesInstalledModel``).
    private let chosen = SharedModelName()
    /// Images and tools as configured; JSON schema always (Ollama's `format` takes a schema).
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(
            images: configuration.supportsImages, jsonSchema: true, tools: configuration.supportsTools,
            contextTokens: configuration.contextTokens)
    }
    private let call: HTTPCall

    /// Creates the provider.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.call = HTTPCall(provider: "ollama", timeouts: configuration.timeouts)
    }

    /// The models installed on the server.
    public func listModels() async throws -> [String] {
        let call = HTTPCall(provider: "ollama", timeouts: configuration.probeTimeouts)
        struct Tags: Decodable {
            struct Model: Decodable { var name: String }
            var models: [Model]
        }
        return try await call.json(Tags.self, call.request(join(configuration.host, "/api/tags"), method: .GET)).models.map(\.name)
    }

    public func availability() async -> Availability {
        do {
            let models = try await listModels()
            let wanted = configuration.model
            if models.contains(where: { $0 == wanted || $0 == "\(wanted):latest" }) { return .ready }
            if configuration.usesInstalledModel, choose(among: models) != nil { return .ready }
            return .missingModel(path: "\(configuration.host) \(wanted)", hint: "run `ollama pull \(wanted)`")
        } catch {
            return .serverUnreachable(url: configuration.host, reason: "\(error)")
        }
    }

    /// The model requests go to: the configured one, or (with no `OLLAMA_MODEL`) the installed
    /// chat model chosen when the configured one is not installed.
    func modelInUse() async -> String {
        guard configuration.usesInstalledModel else { return configuration.model }
        if let chosen = chosen.withLock({ $0 }) { return chosen }
        guard let models = try? await listModels() else { return configuration.model }
        if models.contains(where: { $0 == configuration.model || $0 == "\(configuration.model):latest" }) { return configuration.model }
        return choose(among: models) ?? configuration.model
    }

    /// The first installed chat model (embedding models cannot chat), remembered and named in
    /// a warning; `nil` when there is none.
    private func choose(among models: [String]) -> String? {
        guard let pick = models.first(where: { !Self.isEmbeddingModel($0) }) else { return nil }
        let first = chosen.withLock { name -> Bool in
            defer { name = pick }
            return name != pick
        }
        if first {
            Logger(label: "parley.ollama").warning(
                "OLLAMA_MODEL is not set and \(configuration.model) is not installed on \(configuration.host): using \(pick), installed there (set OLLAMA_MODEL to choose)"
            )
        }
        return pick
    }

    /// Whether `name` is an embedding model by Ollama's naming (nomic-embed-text, mxbai-embed-large,
    /// all-minilm, bge-m3, snowflake-arctic-embed …).
    static func isEmbeddingModel(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["embed", "minilm", "bge-", "bge:", "paraphrase-"].contains { lowered.contains($0) }
    }

    /// Streams the reply; the model's tool calls are checked against the request's tools (see
    /// ``ToolCallError``), and arguments that break a tool's schema are sent back once for
    /// correction.
    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let model = self
        return ToolCallGate.checked(request, provider: "ollama") { model.completeUnchecked($0) }
    }

    /// The reply to `request` as the server sends it, tool calls unchecked.
    func completeUnchecked(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let call = self.call
        let url = join(configuration.host, "/api/chat")
        let model = self
        return .producing { output in
            try checkCapabilities(for: request)
            let body = ChatBody(request, model: await model.modelInUse())
            let response = try await call.send(try call.request(url, json: body))
            var splitter = LineSplitter()
            var calls = 0
            for try await buffer in call.chunks(response) {
                for line in splitter.feed(buffer.readableBytesView) {
                    if try Self.handle(line, calls: &calls, output) { return }
                }
            }
            if let last = splitter.finish(), try Self.handle(last, calls: &calls, output) { return }
            // A stream its consumer gave up on ends early because of that: a cancellation, not a fault.
            try Task.checkCancellation()
            throw HTTPProviderError(provider: "ollama", kind: .malformedResponse, message: "the stream ended before done")
        }
    }

    /// Handles one NDJSON line; returns whether it was the last. `calls` counts the tool calls
    /// so far.
    private static func handle(_ line: String, calls: inout Int, _ output: AsyncThrowingStream<ChatEvent, any Error>.Continuation) throws -> Bool {
        let chunk: Chunk
        do {
            chunk = try JSONDecoder().decode(Chunk.self, from: Data(line.utf8))
        } catch {
            throw HTTPProviderError(provider: "ollama", kind: .malformedResponse, message: "unreadable line: \(line.prefix(200))")
        }
        if let error = chunk.error { throw HTTPProviderError(provider: "ollama", kind: .server(status: 500), message: error) }
        if let text = chunk.message?.content, !text.isEmpty { output.yield(.text(text)) }
        if let wire = chunk.message?.tool_calls, !wire.isEmpty {
            // Read the arguments again in order (the decoder above does not keep members' order).
            let ordered = (try? JSONValue(parsing: line))?["message"]?["tool_calls"]?.array
            for (offset, piece) in wire.enumerated() {
                let inOrder = ordered.flatMap { offset < $0.count ? $0[offset]["function"]?["arguments"] : nil }
                let arguments = inOrder ?? piece.function?.arguments
                let text: String =
                    switch arguments {
                    case .string(let written)?: written
                    case let value?: value.text
                    case nil: "{}"
                    }
                let whole = ToolCall(id: piece.id ?? ToolCall.newID(), name: piece.function?.name ?? "", arguments: text)
                output.yield(.toolCallDelta(ToolCallDelta(index: calls, id: whole.id, name: whole.name, arguments: whole.arguments)))
                output.yield(.toolCall(whole))
                calls += 1
            }
        }
        guard chunk.done == true else { return false }
        let finish: FinishReason = calls > 0 ? .toolCalls : (chunk.done_reason == "length" ? .length : .stop)
        output.yield(.finished(finish, Usage(inputTokens: chunk.prompt_eval_count ?? 0, outputTokens: chunk.eval_count ?? 0)))
        return true
    }

    // MARK: Wire format

    struct ChatBody: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
            var images: [String]?
            var tool_calls: [WireToolCall]?
            var tool_name: String?
        }
        /// A call in an assistant message of the history: arguments as an object, no id.
        struct WireToolCall: Encodable {
            struct Function: Encodable {
                var name: String
                var arguments: JSONValue
            }
            var function: Function
        }
        /// A function the model may call, in OpenAI's shape.
        struct Tool: Encodable {
            struct Function: Encodable {
                var name: String
                var description: String?
                var parameters: JSONValue
            }
            var type = "function"
            var function: Function
        }
        struct Options: Encodable {
            var temperature: Double
            var top_p: Double
            var top_k: Int
            var num_predict: Int
            var seed: UInt32?
            var stop: [String]?
        }

        var model: String
        var messages: [Message]
        var stream = true
        var options: Options
        var format: JSONValue?
        var tools: [Tool]?

        init(_ request: ChatRequest, model: String) {
            self.model = model
            // A tool message without its function's name gets it from the call it answers.
            var names: [String: String] = [:]
            for message in request.messages {
                for call in message.toolCalls { names[call.id] = call.name }
            }
            messages = request.messages.map { message in
                let images = message.parts.compactMap { part -> String? in
                    if case .image(let data, _) = part { return data.base64EncodedString() }
                    return nil
                }
                let calls = message.toolCalls.map { call in
                    WireToolCall(function: .init(name: call.name, arguments: call.parsedArguments ?? .object([:])))
                }
                return Message(
                    role: message.role.rawValue, content: message.text, images: images.isEmpty ? nil : images,
                    tool_calls: calls.isEmpty ? nil : calls,
                    tool_name: message.role == .tool ? message.toolName ?? message.toolCallID.flatMap { names[$0] } : nil)
            }
            // No tool choice on the wire: only the tools the model may call are sent.
            let callable = request.callableTools.map { tool in
                Tool(function: .init(name: tool.name, description: tool.description, parameters: tool.parameters))
            }
            tools = callable.isEmpty ? nil : callable
            let sampling = request.sampling
            options = Options(
                temperature: sampling.temperature, top_p: sampling.topP, top_k: sampling.topK,
                num_predict: sampling.maxTokens, seed: sampling.seed, stop: sampling.stop.isEmpty ? nil : sampling.stop)
            format = request.responseSchema?.schema
        }
    }

    struct Chunk: Decodable {
        struct Message: Decodable {
            var content: String?
            var tool_calls: [WireCall]?
        }
        /// A whole call: arguments an object (a string from some proxies), an id only from
        /// newer servers.
        struct WireCall: Decodable {
            struct Function: Decodable {
                var name: String?
                var arguments: JSONValue?
            }
            var id: String?
            var function: Function?
        }
        var message: Message?
        var done: Bool?
        var done_reason: String?
        var prompt_eval_count: Int?
        var eval_count: Int?
        var error: String?
    }
}

/// The name of a model chosen at run time, shared by the copies of a provider.
final class SharedModelName: Sendable {
    private let name = Mutex<String?>(nil)

    func withLock<Result>(_ body: (inout String?) -> Result) -> Result {
        name.withLock { body(&$0) }
    }
}
