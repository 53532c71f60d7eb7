import Foundation
import ParleyData

/// The `settings` object of a threads API body: `{"system_prompt", "max_tokens",
/// "model_preset", "backend"}`, every field optional. Absent fields keep their value (a new
/// thread's defaults, or a saved thread's settings); `"model_preset": null` clears the preset.
struct ThreadSettingsPatch: Decodable, Sendable {
    var backend: String?
    var modelPreset: String??
    var systemPrompt: String?
    var maxTokens: Int?

    enum CodingKeys: String, CodingKey {
        case backend
        case modelPreset = "model_preset"
        case systemPrompt = "system_prompt"
        case maxTokens = "max_tokens"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        backend = try container.decodeIfPresent(String.self, forKey: .backend)
        modelPreset = try container.decodeNullable(String.self, forKey: .modelPreset)
        systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt)
        maxTokens = try container.decodeIfPresent(Int.self, forKey: .maxTokens)
    }

    /// Refuses values no conversation can run with.
    func validate() throws(OpenAIError) {
        if let backend, backend.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .invalidRequest(
                "'settings.backend' must not be empty: name the backend that answers, e.g. local or openai.",
                param: "settings.backend")
        }
        if let maxTokens, !ChatCompletionRequest.maxTokensRange.contains(maxTokens) {
            throw .invalidRequest("'settings.max_tokens' must be from 1 to \(ChatCompletionRequest.maxTokensRange.upperBound).", param: "settings.max_tokens")
        }
    }

    /// `settings` with the fields this patch sets.
    func apply(to settings: inout ThreadSettings) {
        if let backend { settings.backend = backend }
        if let modelPreset { settings.modelPreset = modelPreset }
        if let systemPrompt { settings.systemPrompt = systemPrompt }
        if let maxTokens { settings.maxTokens = maxTokens }
    }
}
