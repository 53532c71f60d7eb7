import ParleyCloud
import ParleyCore

extension Runtime {
    /// The configured embedding providers, in the order a request tries them: an
    /// OpenAI-compatible server (`OPENAI_API_KEY` or `OPENAI_BASE_URL`; model
    /// `OPENAI_EMBEDDING_MODEL`, text-embedding-3-small by default), then Ollama (`OLLAMA_HOST`;
    /// model `OLLAMA_EMBEDDING_MODEL`, nomic-embed-text by default). Empty when neither is set:
    /// there is no on-device embedding model yet.
    public nonisolated func embeddingProviders() -> [any EmbeddingProvider] {
        var providers: [any EmbeddingProvider] = []
        let openAIBase = settings.value("OPENAI_BASE_URL"), openAIKey = settings.value("OPENAI_API_KEY")
        if openAIBase != nil || openAIKey != nil {
            providers.append(OpenAIEmbeddings(baseURL: openAIBase ?? OpenAILanguageModel.Configuration.defaultBaseURL, apiKey: openAIKey,
                                              defaultModel: settings.value("OPENAI_EMBEDDING_MODEL") ?? "text-embedding-3-small"))
        }
        if let host = settings.value("OLLAMA_HOST") {
            providers.append(OllamaEmbeddings(host: host, defaultModel: settings.value("OLLAMA_EMBEDDING_MODEL") ?? "nomic-embed-text"))
        }
        return providers
    }
}
