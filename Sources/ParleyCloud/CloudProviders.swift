import Foundation
import ParleyCore

/// The cloud and self-hosted providers the environment configures, in the seeds' order of
/// preference, using the providers' conventional variable names.
public struct CloudProviders: Sendable {
    /// The environment read.
    public let environment: [String: String]

    /// Reads `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Every cloud or self-hosted language model Parley knows, configured or not (for
    /// `parley doctor`): Anthropic, OpenAI (or the server at `OPENAI_BASE_URL`), Ollama.
    public func allLanguageModels() -> [any LanguageModelProvider] {
        [AnthropicLanguageModel(configuration: .fromEnvironment(environment)),
         OpenAILanguageModel(configuration: .fromEnvironment(environment)),
         OllamaLanguageModel(configuration: .fromEnvironment(environment))]
    }

    /// The language models the environment configures: Anthropic with `ANTHROPIC_API_KEY`,
    /// OpenAI with `OPENAI_API_KEY` or `OPENAI_BASE_URL`, Ollama with `OLLAMA_HOST` or
    /// `OLLAMA_MODEL`. Unconfigured ones are left out, so the offline default logs nothing.
    public func configuredLanguageModels() -> [any LanguageModelProvider] {
        var providers: [any LanguageModelProvider] = []
        if isSet("ANTHROPIC_API_KEY") { providers.append(AnthropicLanguageModel(configuration: .fromEnvironment(environment))) }
        if isSet("OPENAI_API_KEY") || isSet("OPENAI_BASE_URL") {
            providers.append(OpenAILanguageModel(configuration: .fromEnvironment(environment)))
        }
        if isSet("OLLAMA_HOST") || isSet("OLLAMA_MODEL") { providers.append(OllamaLanguageModel(configuration: .fromEnvironment(environment))) }
        return providers
    }

    /// One named language model, with optional overrides of its base URL and model.
    public func languageModel(named name: String, baseURL: String?, model: String?) -> (any LanguageModelProvider)? {
        switch name {
        case "openai":
            var configuration = OpenAILanguageModel.Configuration.fromEnvironment(environment)
            if let baseURL {
                configuration = .init(baseURL: baseURL, apiKey: configuration.apiKey, model: configuration.model)
            }
            if let model { configuration.model = model }
            return OpenAILanguageModel(configuration: configuration)
        case "anthropic":
            var configuration = AnthropicLanguageModel.Configuration.fromEnvironment(environment)
            if let baseURL { configuration.baseURL = baseURL }
            if let model { configuration.model = model }
            return AnthropicLanguageModel(configuration: configuration)
        case "ollama":
            var configuration = OllamaLanguageModel.Configuration.fromEnvironment(environment)
            if let baseURL { configuration = .init(host: baseURL, model: configuration.model) }
            if let model { configuration.model = model }
            return OllamaLanguageModel(configuration: configuration)
        default:
            return nil
        }
    }

    private func isSet(_ name: String) -> Bool {
        environmentValue(name, in: environment) != nil
    }
}
