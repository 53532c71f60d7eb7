import Foundation
import ParleyCore

/// A chat completion as the response cache keeps it (the ``CachedResponse/body`` of the store's
/// row, as JSON): what is needed to answer again in OpenAI's shape, whole or streamed.
struct CachedChatAnswer: Codable, Sendable, Equatable {
    /// The reply's text.
    var text: String
    /// OpenAI's `finish_reason`: `stop` or `length`.
    var finishReason: String
    /// The tokens the original answer took.
    var inputTokens: Int
    var cachedInputTokens: Int
    var outputTokens: Int
    /// The provider that answered then, and its model: the response's `model` and headers.
    var provider: String?
    var providerModel: String?
    var providerIsLocal: Bool
    /// The `model` field the original response carried.
    var model: String

    enum CodingKeys: String, CodingKey {
        case text, provider, model
        case finishReason = "finish_reason"
        case inputTokens = "input_tokens"
        case cachedInputTokens = "cached_input_tokens"
        case outputTokens = "output_tokens"
        case providerModel = "provider_model"
        case providerIsLocal = "provider_is_local"
    }

    init(text: String, finishReason: String, usage: Usage, provider: ProviderIdentity?, model: String) {
        self.text = text
        self.finishReason = finishReason
        inputTokens = usage.inputTokens
        cachedInputTokens = usage.cachedInputTokens
        outputTokens = usage.outputTokens
        self.provider = provider?.name
        providerModel = provider?.model
        providerIsLocal = provider?.isLocal ?? false
        self.model = model
    }

    /// The usage the original answer reported.
    var usage: Usage { Usage(inputTokens: inputTokens, cachedInputTokens: cachedInputTokens, outputTokens: outputTokens) }

    /// The provider that answered then, for the response headers.
    var identity: ProviderIdentity? {
        provider.map { ProviderIdentity(name: $0, model: providerModel, isLocal: providerIsLocal) }
    }
}
