/// Vectors for texts, each in the order given, from one embedding model.
public struct Embeddings: Sendable, Equatable {
    /// One vector per input text.
    public var vectors: [[Float]]
    /// The model that made them.
    public var model: String
    /// Tokens read, as the provider counted them (0 when it does not say).
    public var inputTokens: Int

    /// Creates embeddings.
    public init(vectors: [[Float]], model: String, inputTokens: Int = 0) {
        self.vectors = vectors
        self.model = model
        self.inputTokens = inputTokens
    }
}

/// A provider of text embeddings (vectors whose nearness follows meaning).
public protocol EmbeddingProvider: Provider {
    /// Vectors for `texts`, in their order; `model` overrides the configured one.
    func embed(_ texts: [String], model: String?) async throws -> Embeddings

    /// Whether the model runs in this process on this machine's engine, the one a client names
    /// `local`; it takes no model name of a client's. By default `false`.
    var runsOnDevice: Bool { get }
}

extension EmbeddingProvider {
    public var runsOnDevice: Bool { false }
}
