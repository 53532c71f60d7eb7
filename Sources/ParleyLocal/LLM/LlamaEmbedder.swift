import Foundation
import Logging
import ParleyCore

/// On-device text embeddings: llama.cpp's embedding API running a sentence-embedding GGUF
/// (all-MiniLM-L6-v2 from the catalog, converted by `scripts/setup`). Each text becomes one
/// vector, pooled the way the model says (mean for MiniLM) and L2-normalized, so the dot product
/// of two vectors is their cosine similarity.
///
/// The model is loaded on first use and kept (46 MB for MiniLM). Work runs on the actor's own
/// thread and takes its turn on the engines' ``ComputeLane``, like the language model's.
public actor LlamaEmbedder: EmbeddingProvider {
    /// llama.cpp in this process.
    public nonisolated var runsOnDevice: Bool { true }

    /// Settings of the embedder.
    public struct Configuration: Sendable, Equatable {
        /// The GGUF file.
        public var modelPath: String
        /// CPU threads for evaluation (fewer when other processes are busy; see ``CoreShare``).
        public var threads: Int
        /// The most tokens of one text that are read; the rest is cut off, as
        /// sentence-transformers does (all-MiniLM-L6-v2 was trained on 256 at most).
        public var tokensPerText: Int
        /// The model's name in answers (a catalog id such as `all-minilm-l6-v2`); `nil`: the
        /// file's name without `.gguf`.
        public var name: String?

        /// Creates a configuration.
        public init(
            modelPath: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount, tokensPerText: Int = 256,
            name: String? = nil
        ) {
            self.modelPath = modelPath
            self.threads = max(1, threads)
            self.tokensPerText = max(2, tokensPerText)
            self.name = name
        }
    }

    /// The catalog id of the default model, all-MiniLM-L6-v2 (ParleyModels'
    /// `ModelCatalog.embeddingModelID`), the name its vectors are reported under.
    public static let defaultModelName = "all-minilm-l6-v2"

    public nonisolated let identity: ProviderIdentity
    /// The model's name in answers: ``Configuration/name``, else the file's name without `.gguf`.
    public nonisolated let modelName: String
    /// The embedder's settings.
    public nonisolated let configuration: Configuration
    private let executor = ThreadExecutor(name: "parley.llama.embed")
    private var session: LlamaEmbeddingSession?
    private let logger = Logger(label: "parley.llama.embed")

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the embedder; nothing is loaded until the first request (or ``load()``).
    public init(configuration: Configuration) {
        self.configuration = configuration
        let name = configuration.name ?? URL(fileURLWithPath: configuration.modelPath).deletingPathExtension().lastPathComponent
        modelName = name
        identity = ProviderIdentity(name: "llama.cpp", model: name, isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        guard LlamaEngine.isBuilt else { return .unsupported(reason: LlamaEngine.notBuiltReason) }
        return FileManager.default.fileExists(atPath: configuration.modelPath)
            ? .ready
            : .missingModel(path: configuration.modelPath, hint: "run scripts/setup, which fetches all-MiniLM-L6-v2 and converts it to GGUF")
    }

    /// Loads the model now (otherwise it loads on the first request).
    public func load() throws(LlamaError) {
        _ = try loadedSession()
    }

    /// Whether the model is in memory.
    public var isLoaded: Bool { session != nil }

    /// The length of the vectors, once the model is loaded (384 for all-MiniLM-L6-v2).
    public var dimensions: Int? { session?.dimensions }

    /// Frees the model (the next request loads it again).
    public func unload() {
        session = nil
    }

    private func loadedSession() throws(LlamaError) -> LlamaEmbeddingSession {
        if let session { return session }
        let loaded = try LlamaEmbeddingSession(
            modelPath: configuration.modelPath, threads: configuration.threads,
            tokensPerText: configuration.tokensPerText)
        logger.debug("loaded \(loaded.modelDescription): \(loaded.dimensions) dimensions")
        session = loaded
        return loaded
    }

    /// One normalized vector per text, in order; `inputTokens` counts the tokens read (the
    /// model's start and separator tokens included, long texts counted as cut). `model` is
    /// ignored: there is one on-device model.
    ///
    /// - Throws: ``ProviderError/invalidInput(_:)`` for an empty text, ``LlamaError`` when the
    ///   model cannot be loaded or evaluated.
    public func embed(_ texts: [String], model: String? = nil) throws -> Embeddings {
        guard !texts.isEmpty else { return Embeddings(vectors: [], model: modelName, inputTokens: 0) }
        if let index = texts.firstIndex(where: { $0.allSatisfy(\.isWhitespace) }) {
            throw ProviderError.invalidInput("text \(index) is empty; every text to embed needs at least one word")
        }
        let session = try loadedSession()
        session.useThreads(CoreShare.shared.threads(upTo: configuration.threads))
        var tokens: [[Int32]] = []
        tokens.reserveCapacity(texts.count)
        for text in texts {
            if Task.isCancelled { throw CancellationError() }
            tokens.append(try session.tokenize(text))
        }
        let pooled = try ComputeLane.shared.run { try session.embed(tokens) }
        return Embeddings(vectors: pooled.map(Self.normalized), model: modelName, inputTokens: tokens.reduce(0) { $0 + $1.count })
    }

    /// `vector` scaled to length 1 (unchanged when it is all zeros).
    static func normalized(_ vector: [Float]) -> [Float] {
        let length = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        guard length > 0 else { return vector }
        return vector.map { $0 / length }
    }
}
