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

    /// Every cloud or self-hosted speech-to-text provider: Deepgram (nova-3), AssemblyAI,
    /// OpenAI. Base URLs from `DEEPGRAM_BASE_URL`, `ASSEMBLYAI_BASE_URL`, `OPENAI_BASE_URL`.
    public func allSpeechToText() -> [any SpeechToTextProvider] {
        ["deepgram", "assemblyai", "openai"].compactMap { speechToText(named: $0) }
    }

    /// The speech-to-text providers whose keys are set.
    public func configuredSpeechToText() -> [any SpeechToTextProvider] {
        ["deepgram": "DEEPGRAM_API_KEY", "assemblyai": "ASSEMBLYAI_API_KEY", "openai": "OPENAI_API_KEY"]
            .sorted { $0.key < $1.key }
            .filter { isSet($0.value) }
            .compactMap { speechToText(named: $0.key) }
    }

    /// One named speech-to-text provider: deepgram, assemblyai or openai.
    public func speechToText(named name: String, baseURL: String? = nil, model: String? = nil) -> (any SpeechToTextProvider)? {
        switch name {
        case "deepgram":
            return DeepgramSpeechToText(configuration: .init(
                baseURL: baseURL ?? value("DEEPGRAM_BASE_URL") ?? DeepgramSpeechToText.defaultBaseURL,
                apiKey: value("DEEPGRAM_API_KEY"), model: model ?? "nova-3"))
        case "assemblyai":
            return AssemblyAISpeechToText(configuration: .init(
                baseURL: baseURL ?? value("ASSEMBLYAI_BASE_URL") ?? AssemblyAISpeechToText.defaultBaseURL,
                apiKey: value("ASSEMBLYAI_API_KEY"), model: model ?? "universal"))
        case "openai":
            return OpenAISpeechToText(configuration: .init(
                baseURL: baseURL ?? value("OPENAI_BASE_URL") ?? OpenAILanguageModel.Configuration.defaultBaseURL,
                apiKey: value("OPENAI_API_KEY"), model: model ?? "whisper-1"))
        default:
            return nil
        }
    }

    /// Every cloud or self-hosted text-to-speech provider: ElevenLabs, Deepgram Aura,
    /// OpenAI, and Piper at `PIPER_BASE_URL`.
    public func allTextToSpeech() -> [any TextToSpeechProvider] {
        ["elevenlabs", "deepgram", "openai", "piper"].compactMap { textToSpeech(named: $0) }
    }

    /// The text-to-speech providers whose keys (or Piper's URL) are set.
    public func configuredTextToSpeech() -> [any TextToSpeechProvider] {
        [("elevenlabs", "ELEVENLABS_API_KEY"), ("deepgram", "DEEPGRAM_API_KEY"), ("openai", "OPENAI_API_KEY"), ("piper", "PIPER_BASE_URL")]
            .filter { isSet($0.1) }
            .compactMap { textToSpeech(named: $0.0) }
    }

    /// One named text-to-speech provider: elevenlabs, deepgram, openai or piper.
    public func textToSpeech(named name: String, baseURL: String? = nil, model: String? = nil) -> (any TextToSpeechProvider)? {
        switch name {
        case "elevenlabs":
            return ElevenLabsTextToSpeech(configuration: .init(
                baseURL: baseURL ?? value("ELEVENLABS_BASE_URL") ?? ElevenLabsTextToSpeech.defaultBaseURL,
                apiKey: value("ELEVENLABS_API_KEY"), model: model ?? "eleven_flash_v2_5"))
        case "deepgram":
            return DeepgramTextToSpeech(configuration: .init(
                baseURL: baseURL ?? value("DEEPGRAM_BASE_URL") ?? DeepgramSpeechToText.defaultBaseURL,
                apiKey: value("DEEPGRAM_API_KEY"), model: model ?? "aura-2-thalia-en"))
        case "openai":
            return OpenAITextToSpeech(configuration: .init(
                baseURL: baseURL ?? value("OPENAI_BASE_URL") ?? OpenAILanguageModel.Configuration.defaultBaseURL,
                apiKey: value("OPENAI_API_KEY"), model: model ?? "gpt-4o-mini-tts"))
        case "piper":
            return PiperHTTPTextToSpeech(baseURL: baseURL ?? value("PIPER_BASE_URL") ?? "http://127.0.0.1:5000")
        default:
            return nil
        }
    }

    private func value(_ name: String) -> String? {
        environmentValue(name, in: environment)
    }

    private func isSet(_ name: String) -> Bool {
        environmentValue(name, in: environment) != nil
    }
}
