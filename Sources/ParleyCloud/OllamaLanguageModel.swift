import AsyncHTTPClient
import Foundation
import ParleyCore

/// A self-hosted Ollama server through its native API: `/api/chat` streaming newline-delimited
/// JSON, and `/api/tags` for availability and the list of installed models.
public struct OllamaLanguageModel: LanguageModelProvider {
    /// Settings of the client.
    public struct Configuration: Sendable, Equatable {
        /// E.g. `http://127.0.0.1:11434`.
        public var host: String
        public var model: String
        public var timeouts: HTTPTimeouts
        /// Whether the model reads images (e.g. llava, llama3.2-vision).
        public var supportsImages: Bool
        /// The context window (`num_ctx`) in tokens, when known.
        public var contextTokens: Int?
        /// How long ``OllamaLanguageModel/availability()`` and ``OllamaLanguageModel/listModels()``
        /// wait for `/api/tags` (short, so a dead server is passed over quickly).
        public var probeTimeouts: HTTPTimeouts = .probe

        public static let defaultHost = "http://127.0.0.1:11434"

        /// Creates a configuration.
        public init(host: String = Self.defaultHost, model: String = "llama3.2", timeouts: HTTPTimeouts = HTTPTimeouts(), supportsImages: Bool = false,
                    contextTokens: Int? = nil) {
            self.host = host.hasPrefix("http") ? host : "http://\(host)"
            self.model = model
            self.timeouts = timeouts
            self.supportsImages = supportsImages
            self.contextTokens = contextTokens
        }

        /// From `OLLAMA_HOST` and `OLLAMA_MODEL`.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            Configuration(host: environmentValue("OLLAMA_HOST", in: environment) ?? defaultHost,
                          model: environmentValue("OLLAMA_MODEL", in: environment) ?? "llama3.2")
        }
    }

    public let configuration: Configuration
    public let identity: ProviderIdentity
    /// Images as configured; JSON schema always (Ollama's `format` takes a schema).
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(images: configuration.supportsImages, jsonSchema: true, contextTokens: configuration.contextTokens)
    }
    private let call: HTTPCall

    /// Creates the provider.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: "ollama", model: configuration.model,
                                         isLocal: OpenAILanguageModel.Configuration.isLoopback(configuration.host))
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
            guard models.contains(where: { $0 == wanted || $0 == "\(wanted):latest" }) else {
                return .missingModel(path: "\(configuration.host) \(wanted)", hint: "run `ollama pull \(wanted)`")
            }
            return .ready
        } catch {
            return .serverUnreachable(url: configuration.host, reason: "\(error)")
        }
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let call = self.call
        let body = ChatBody(request, model: configuration.model)
        let url = join(configuration.host, "/api/chat")
        return .producing { output in
            try checkCapabilities(for: request)
            let response = try await call.send(try call.request(url, json: body))
            var splitter = LineSplitter()
            for try await buffer in call.chunks(response) {
                for line in splitter.feed(buffer.readableBytesView) {
                    if try Self.handle(line, output) { return }
                }
            }
            if let last = splitter.finish(), try Self.handle(last, output) { return }
            throw HTTPProviderError(provider: "ollama", kind: .malformedResponse, message: "the stream ended before done")
        }
    }

    /// Handles one NDJSON line; returns whether it was the last.
    private static func handle(_ line: String, _ output: AsyncThrowingStream<ChatEvent, any Error>.Continuation) throws -> Bool {
        let chunk: Chunk
        do {
            chunk = try JSONDecoder().decode(Chunk.self, from: Data(line.utf8))
        } catch {
            throw HTTPProviderError(provider: "ollama", kind: .malformedResponse, message: "unreadable line: \(line.prefix(200))")
        }
        if let error = chunk.error { throw HTTPProviderError(provider: "ollama", kind: .server(status: 500), message: error) }
        if let text = chunk.message?.content, !text.isEmpty { output.yield(.text(text)) }
        guard chunk.done == true else { return false }
        output.yield(.finished(chunk.done_reason == "length" ? .length : .stop,
                               Usage(inputTokens: chunk.prompt_eval_count ?? 0, outputTokens: chunk.eval_count ?? 0)))
        return true
    }

    // MARK: Wire format

    struct ChatBody: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
            var images: [String]?
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

        init(_ request: ChatRequest, model: String) {
            self.model = model
            messages = request.messages.map { message in
                let images = message.parts.compactMap { part -> String? in
                    if case .image(let data, _) = part { return data.base64EncodedString() }
                    return nil
                }
                return Message(role: message.role.rawValue, content: message.text, images: images.isEmpty ? nil : images)
            }
            let sampling = request.sampling
            options = Options(temperature: sampling.temperature, top_p: sampling.topP, top_k: sampling.topK,
                              num_predict: sampling.maxTokens, seed: sampling.seed, stop: sampling.stop.isEmpty ? nil : sampling.stop)
            format = request.responseSchema?.schema
        }
    }

    struct Chunk: Decodable {
        struct Message: Decodable { var content: String? }
        var message: Message?
        var done: Bool?
        var done_reason: String?
        var prompt_eval_count: Int?
        var eval_count: Int?
        var error: String?
    }
}
