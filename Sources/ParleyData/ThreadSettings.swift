/// How a conversation talks to its model: the backend, the model preset, the system prompt and
/// the reply length. Saved with the thread so a conversation resumes the way it started.
public struct ThreadSettings: Sendable, Equatable, Codable {
    /// The backend that answers, e.g. `"local"` or `"openai"`.
    public var backend: String
    /// A named model preset of that backend, or `nil` for the backend's default model.
    public var modelPreset: String?
    /// The system prompt that opens the conversation.
    public var systemPrompt: String
    /// The most tokens a reply may have.
    public var maxTokens: Int

    /// The system prompt of a new voice conversation.
    public static let defaultSystemPrompt = "You are a helpful voice assistant. Answer in one or two short sentences."

    /// The reply length of a new conversation, in tokens.
    public static let defaultMaxTokens = 256

    /// Creates settings. The defaults are the on-device backend and its default model, a
    /// system prompt for short spoken answers, and ``defaultMaxTokens``.
    public init(
        backend: String = "local",
        modelPreset: String? = nil,
        systemPrompt: String = ThreadSettings.defaultSystemPrompt,
        maxTokens: Int = ThreadSettings.defaultMaxTokens
    ) {
        self.backend = backend
        self.modelPreset = modelPreset
        self.systemPrompt = systemPrompt
        self.maxTokens = maxTokens
    }

    enum CodingKeys: String, CodingKey {
        case backend
        case modelPreset = "model_preset"
        case systemPrompt = "system_prompt"
        case maxTokens = "max_tokens"
    }

    /// Encodes every field; a missing model preset is written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(backend, forKey: .backend)
        try container.encode(modelPreset, forKey: .modelPreset)
        try container.encode(systemPrompt, forKey: .systemPrompt)
        try container.encode(maxTokens, forKey: .maxTokens)
    }
}
