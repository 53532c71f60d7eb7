import AsyncHTTPClient
import Foundation
import ParleyCore

/// OpenAI's `POST /embeddings`, also served by OpenAI-compatible servers (vLLM, llama.cpp's
/// server with `--embeddings`, LM Studio, another Parley with an upstream).
public struct OpenAIEmbeddings: EmbeddingProvider {
    public let baseURL: String
    public let apiKey: String?
    /// The model when a request names none.
    public let defaultModel: String
    public let identity: ProviderIdentity
    private let call: HTTPCall

    /// Creates the provider; `defaultModel` e.g. "text-embedding-3-small".
    public init(baseURL: String, apiKey: String?, defaultModel: String = "text-embedding-3-small", timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.defaultModel = defaultModel
        self.identity = ProviderIdentity(name: "openai", model: defaultModel, isLocal: OpenAILanguageModel.Configuration.isLoopback(baseURL))
        self.call = HTTPCall(provider: "openai", timeouts: timeouts)
    }

    public func availability() async -> Availability {
        await openAICompatibleAvailability(baseURL: baseURL, apiKey: apiKey, name: "openai")
    }

    public func embed(_ texts: [String], model: String?) async throws -> Embeddings {
        struct Body: Encodable { var model: String; var input: [String]; var encoding_format = "float" }
        struct Reply: Decodable {
            struct Item: Decodable { var index: Int; var embedding: [Float] }
            struct Usage: Decodable { var prompt_tokens: Int? }
            var data: [Item]
            var model: String?
            var usage: Usage?
        }
        let name = model ?? defaultModel
        let request = try call.request(
            join(baseURL, "/embeddings"), headers: apiKey.map { [("authorization", "Bearer \($0)")] } ?? [],
            json: Body(model: name, input: texts))
        let reply = try await call.json(Reply.self, request)
        let ordered = reply.data.sorted { $0.index < $1.index }.map(\.embedding)
        guard ordered.count == texts.count else {
            throw HTTPProviderError(provider: "openai", kind: .malformedResponse, message: "\(ordered.count) embeddings for \(texts.count) inputs")
        }
        return Embeddings(vectors: ordered, model: reply.model ?? name, inputTokens: reply.usage?.prompt_tokens ?? 0)
    }
}

/// Ollama's `POST /api/embed` (an embedding model such as nomic-embed-text or all-minilm).
public struct OllamaEmbeddings: EmbeddingProvider {
    public let host: String
    /// The model when a request names none.
    public let defaultModel: String
    public let identity: ProviderIdentity
    private let call: HTTPCall

    /// Creates the provider.
    public init(
        host: String = OllamaLanguageModel.Configuration.defaultHost, defaultModel: String = "nomic-embed-text",
        timeouts: HTTPTimeouts = HTTPTimeouts()
    ) {
        self.host = host.hasPrefix("http") ? host : "http://\(host)"
        self.defaultModel = defaultModel
        self.identity = ProviderIdentity(name: "ollama", model: defaultModel, isLocal: OpenAILanguageModel.Configuration.isLoopback(self.host))
        self.call = HTTPCall(provider: "ollama", timeouts: timeouts)
    }

    public func availability() async -> Availability {
        await OllamaLanguageModel(configuration: .init(host: host, model: defaultModel)).availability()
    }

    public func embed(_ texts: [String], model: String?) async throws -> Embeddings {
        struct Body: Encodable { var model: String; var input: [String] }
        struct Reply: Decodable { var model: String?; var embeddings: [[Float]]; var prompt_eval_count: Int? }
        let name = model ?? defaultModel
        let reply = try await call.json(Reply.self, try call.request(join(host, "/api/embed"), json: Body(model: name, input: texts)))
        guard reply.embeddings.count == texts.count else {
            throw HTTPProviderError(provider: "ollama", kind: .malformedResponse, message: "\(reply.embeddings.count) embeddings for \(texts.count) inputs")
        }
        return Embeddings(vectors: reply.embeddings, model: reply.model ?? name, inputTokens: reply.prompt_eval_count ?? 0)
    }
}
