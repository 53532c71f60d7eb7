import ParleyCore

/// Failures of the llama.cpp engine, each saying what to do.
public enum LlamaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No model file at the path.
    case modelNotFound(path: String)
    /// llama.cpp could not load the file as a model.
    case modelLoadFailed(path: String)
    /// llama.cpp could not create a context (usually out of memory).
    case contextCreationFailed(contextLength: Int)
    /// The model carries no chat template, or llama.cpp does not know it.
    case chatTemplateUnavailable
    /// Text could not be tokenized.
    case tokenizationFailed
    /// `llama_decode` returned an error code.
    case decodeFailed(code: Int32)
    /// The prompt does not fit the context window even with the history trimmed.
    case promptTooLong(tokens: Int, contextLength: Int)
    /// llama.cpp would not parse the grammar made from a response schema.
    case grammarRejected
    /// The model pools no vector per text (a chat model, or an encoder converted without a
    /// pooling type): it cannot make sentence embeddings.
    case notAnEmbeddingModel(path: String)
    /// llama.cpp evaluated the texts but gave no pooled vector for one of them.
    case embeddingUnavailable

    public var description: String {
        switch self {
        case .modelNotFound(let path):
            return "No language model at \(path); download a GGUF chat model there or pass its path in the configuration."
        case .modelLoadFailed(let path):
            return "llama.cpp could not load \(path); is it a GGUF model file?"
        case .contextCreationFailed(let length):
            return "llama.cpp could not create a context of \(length) tokens; try a smaller context length."
        case .chatTemplateUnavailable:
            return "The model has no chat template llama.cpp supports; use an instruction-tuned GGUF that carries one."
        case .tokenizationFailed:
            return "llama.cpp could not tokenize the prompt."
        case .decodeFailed(let code):
            return "llama.cpp failed to evaluate the prompt (llama_decode returned \(code))."
        case .promptTooLong(let tokens, let contextLength):
            return "The prompt needs \(tokens) tokens but the context holds \(contextLength); shorten it or raise the context length."
        case .grammarRejected:
            return "llama.cpp rejected the grammar made from the response schema; simplify the schema (and report it as a Parley bug)."
        case .notAnEmbeddingModel(let path):
            return
                "\(path) is not a sentence-embedding model (it pools no vector per text); use an embedding GGUF such as `parley models pull all-minilm-l6-v2`'s (run scripts/setup)."
        case .embeddingUnavailable:
            return "llama.cpp gave no pooled vector for a text; check that the embedding model is a BERT-style encoder GGUF with a pooling type."
        }
    }
}

extension LlamaError: ClassifiedError {
    /// A prompt too long for the context is the request's fault (a client's 400, never a mark
    /// against the engine's health); the rest are the engine's, as before.
    public var failureKind: FailureKind {
        if case .promptTooLong = self { return .invalidRequest }
        return .transient(retryAfter: nil)
    }
}
