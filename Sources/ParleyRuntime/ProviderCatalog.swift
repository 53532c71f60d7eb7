import Foundation
import ParleyCloud
import ParleyCore
import ParleyLocal
import ParleySilero

/// What a catalog entry's factory gets to build its provider.
public struct ProviderContext: Sendable {
    /// The settings in force.
    public var settings: RuntimeSettings
    /// A base URL that overrides the provider's setting.
    public var baseURL: String?
    /// A model that overrides the provider's default.
    public var model: String?
    /// The runtime's on-device engines (shared: built once, loaded once).
    public var engines: LocalEngines
    /// The data directory.
    public var paths: ParleyPaths

    /// The first set value among `names`.
    func value(_ names: String...) -> String? {
        names.lazy.compactMap { settings.value($0) }.first
    }

    /// A speech service's settings from the conventional `<PREFIX>_BASE_URL` and
    /// `<PREFIX>_API_KEY`, with this context's overrides.
    func service(_ prefix: String, defaultBaseURL: String, model defaultModel: String) -> SpeechServiceConfiguration {
        SpeechServiceConfiguration(
            baseURL: baseURL ?? value("\(prefix)_BASE_URL") ?? defaultBaseURL,
            apiKey: value("\(prefix)_API_KEY"), model: model ?? defaultModel)
    }
}

/// Builds one provider of a capability.
public enum ProviderFactory: Sendable {
    /// Builds a language model from the settings, engines and paths in the context.
    case languageModel(@Sendable (ProviderContext) -> any LanguageModelProvider)
    /// Builds a speech-to-text provider from the context.
    case speechToText(@Sendable (ProviderContext) -> any SpeechToTextProvider)
    /// Builds a text-to-speech provider from the context.
    case textToSpeech(@Sendable (ProviderContext) -> any TextToSpeechProvider)
    /// Builds a voice activity detector from the context.
    case voiceActivity(@Sendable (ProviderContext) -> any VoiceActivityDetector)

    /// What builds a language model, when this factory builds one.
    public var languageModel: (@Sendable (ProviderContext) -> any LanguageModelProvider)? {
        if case .languageModel(let make) = self { return make }
        return nil
    }

    /// What builds a transcriber, when this factory builds one.
    public var speechToText: (@Sendable (ProviderContext) -> any SpeechToTextProvider)? {
        if case .speechToText(let make) = self { return make }
        return nil
    }

    /// What builds a voice, when this factory builds one.
    public var textToSpeech: (@Sendable (ProviderContext) -> any TextToSpeechProvider)? {
        if case .textToSpeech(let make) = self { return make }
        return nil
    }

    /// What builds a voice activity detector, when this factory builds one.
    public var voiceActivity: (@Sendable (ProviderContext) -> any VoiceActivityDetector)? {
        if case .voiceActivity(let make) = self { return make }
        return nil
    }

    /// What builds a provider of any capability.
    public var provider: @Sendable (ProviderContext) -> any Provider {
        switch self {
        case .languageModel(let make): return make
        case .speechToText(let make): return make
        case .textToSpeech(let make): return make
        case .voiceActivity(let make): return make
        }
    }
}

/// One provider Parley knows: its capability, name, the settings that configure it, its
/// default model, how to build it, what to do when it cannot serve, and — by its place in the
/// catalog — its place in the chain.
public struct ProviderEntry: Sendable {
    /// What it serves.
    public var capability: ProviderCapability
    /// Its name in selections and reports (`deepgram`, `local`, …).
    public var name: String
    /// Where it runs.
    public var placement: ProviderPlacement
    /// Every setting it reads.
    public var variables: [String]
    /// Settings any one of which, when set, puts it in the chain; empty for on-device
    /// engines, which are always in it.
    public var configuredBy: [String]
    /// The model it uses unless told otherwise.
    public var defaultModel: String?
    /// For an on-device engine that is not the default: the setting and the value (compared
    /// without case) that put it in its chains; `nil` for the rest.
    public var chosenBy: (setting: String, value: String)?
    /// What to do to use it (said when it is not configured).
    public var remedy: String
    /// Builds it.
    public var factory: ProviderFactory

    /// Creates an entry.
    public init(
        capability: ProviderCapability, name: String, placement: ProviderPlacement, variables: [String] = [],
        configuredBy: [String] = [], defaultModel: String? = nil, chosenBy: (setting: String, value: String)? = nil,
        remedy: String, factory: ProviderFactory
    ) {
        self.chosenBy = chosenBy
        self.capability = capability
        self.name = name
        self.placement = placement
        self.variables = variables
        self.configuredBy = configuredBy
        self.defaultModel = defaultModel
        self.remedy = remedy
        self.factory = factory
    }

    /// Whether `settings` put this provider in its chain.
    public func isConfigured(in settings: RuntimeSettings) -> Bool {
        if let chosenBy { return settings.value(chosenBy.setting)?.lowercased() == chosenBy.value.lowercased() }
        return configuredBy.isEmpty || configuredBy.contains { settings.value($0) != nil }
    }

    /// The provider, built for `context`.
    public func make(_ context: ProviderContext) -> any Provider {
        switch factory {
        case .languageModel(let make): return make(context)
        case .speechToText(let make): return make(context)
        case .textToSpeech(let make): return make(context)
        case .voiceActivity(let make): return make(context)
        }
    }
}

/// Every provider Parley knows, per capability, in the order the chains try them: the one
/// table both the chains and `parley doctor` read, so they cannot disagree.
///
/// The standard order follows the seed apps: STT Deepgram → AssemblyAI → OpenAI → on-device;
/// TTS ElevenLabs → Deepgram Aura → OpenAI → Piper → on-device (the neural voice, then espeak-ng); LLM cloud (Anthropic, OpenAI or
/// any OpenAI-compatible server) → self-hosted (Ollama) → on-device; VAD Silero → energy. On Apple
/// platforms Apple's own engines (`ParleyApple`: the speech recognizer, the system's voices,
/// Foundation Models) lead the on-device entries (``adding(platform:)``).
public struct ProviderCatalog: Sendable {
    /// The entries, in chain order within each capability.
    public var entries: [ProviderEntry]

    /// Creates a catalog.
    public init(entries: [ProviderEntry]) {
        self.entries = entries
    }

    /// The entries of `capability`, in chain order.
    public func entries(for capability: ProviderCapability) -> [ProviderEntry] {
        entries.filter { $0.capability == capability }
    }

    /// The entry of `capability` named `name`.
    public func entry(_ capability: ProviderCapability, named name: String) -> ProviderEntry? {
        entries.first { $0.capability == capability && $0.name == name }
    }

    /// The names that select a provider of `capability`: `auto`, `local` and each entry's.
    public func selectionNames(for capability: ProviderCapability) -> [String] {
        var names = ["auto", "local"]
        for entry in entries(for: capability) where !names.contains(entry.name) { names.append(entry.name) }
        return names
    }

    /// Parley's providers.
    public static let standard = ProviderCatalog(entries: languageModels + speechToText + textToSpeech + voiceActivity)
        .adding(platform: platformProviders)

    private static let languageModels: [ProviderEntry] = [
        ProviderEntry(
            capability: .languageModel, name: "anthropic", placement: .cloud,
            variables: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"], configuredBy: ["ANTHROPIC_API_KEY"],
            defaultModel: "claude-3-5-haiku-latest", remedy: "set ANTHROPIC_API_KEY",
            factory: .languageModel { context in
                AnthropicLanguageModel(
                    configuration: .init(
                        baseURL: context.baseURL ?? context.value("ANTHROPIC_BASE_URL") ?? AnthropicLanguageModel.Configuration.defaultBaseURL,
                        apiKey: context.value("ANTHROPIC_API_KEY"),
                        model: context.model ?? context.value("ANTHROPIC_MODEL") ?? "claude-3-5-haiku-latest"))
            }),
        ProviderEntry(
            capability: .languageModel, name: "openai", placement: .cloud,
            variables: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"], configuredBy: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
            defaultModel: "gpt-4o-mini", remedy: "set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server",
            factory: .languageModel { context in
                OpenAILanguageModel(
                    configuration: .init(
                        baseURL: context.baseURL ?? context.value("OPENAI_BASE_URL") ?? OpenAILanguageModel.Configuration.defaultBaseURL,
                        apiKey: context.value("OPENAI_API_KEY"),
                        model: context.model ?? context.value("OPENAI_MODEL") ?? "gpt-4o-mini"))
            }),
        ProviderEntry(
            capability: .languageModel, name: "ollama", placement: .selfHosted,
            variables: ["OLLAMA_HOST", "OLLAMA_MODEL"], configuredBy: ["OLLAMA_HOST", "OLLAMA_MODEL"],
            defaultModel: "llama3.2", remedy: "set OLLAMA_HOST and OLLAMA_MODEL",
            factory: .languageModel { context in
                let named = context.model ?? context.value("OLLAMA_MODEL")
                var configuration = OllamaLanguageModel.Configuration(
                    host: context.baseURL ?? context.value("OLLAMA_HOST") ?? OllamaLanguageModel.Configuration.defaultHost,
                    model: named ?? "llama3.2")
                // Without a model named, an installed chat model stands in for llama3.2.
                configuration.usesInstalledModel = named == nil
                return OllamaLanguageModel(configuration: configuration)
            }),
        ProviderEntry(
            capability: .languageModel, name: "local", placement: .onDevice,
            remedy: "install the default model or give the path of a GGUF model",
            factory: .languageModel { $0.engines.llm }),
    ]

    private static let speechToText: [ProviderEntry] = [
        ProviderEntry(
            capability: .speechToText, name: "deepgram", placement: .cloud,
            variables: ["DEEPGRAM_API_KEY", "DEEPGRAM_BASE_URL"], configuredBy: ["DEEPGRAM_API_KEY"],
            defaultModel: "nova-3", remedy: "set DEEPGRAM_API_KEY",
            factory: .speechToText { context in
                DeepgramSpeechToText(configuration: context.service("DEEPGRAM", defaultBaseURL: DeepgramSpeechToText.defaultBaseURL, model: "nova-3"))
            }),
        ProviderEntry(
            capability: .speechToText, name: "assemblyai", placement: .cloud,
            variables: ["ASSEMBLYAI_API_KEY", "ASSEMBLYAI_BASE_URL"], configuredBy: ["ASSEMBLYAI_API_KEY"],
            defaultModel: "universal", remedy: "set ASSEMBLYAI_API_KEY",
            factory: .speechToText { context in
                AssemblyAISpeechToText(configuration: context.service("ASSEMBLYAI", defaultBaseURL: AssemblyAISpeechToText.defaultBaseURL, model: "universal"))
            }),
        ProviderEntry(
            capability: .speechToText, name: "openai", placement: .cloud,
            variables: ["OPENAI_API_KEY", "OPENAI_BASE_URL"], configuredBy: ["OPENAI_API_KEY"],
            defaultModel: "whisper-1", remedy: "set OPENAI_API_KEY",
            factory: .speechToText { context in
                OpenAISpeechToText(
                    configuration: context.service("OPENAI", defaultBaseURL: OpenAILanguageModel.Configuration.defaultBaseURL, model: "whisper-1"))
            }),
        // Moonshine base on sherpa-onnx, before whisper.cpp when chosen: on the project's real
        // recordings it was not enough better than tiny.en to be the default (`Benchmarks/run
        // --suite ears`). A missing model falls back to whisper.cpp with a warning.
        ProviderEntry(
            capability: .speechToText, name: "moonshine", placement: .onDevice, variables: ["PARLEY_STT_MODEL"],
            defaultModel: "moonshine-base-en", chosenBy: ("PARLEY_STT_MODEL", "moonshine-base"),
            remedy: "set PARLEY_STT_MODEL=moonshine-base and run `parley models pull moonshine-base`",
            factory: .speechToText { $0.engines.moonshine }),
        ProviderEntry(
            capability: .speechToText, name: "local", placement: .onDevice,
            remedy: "install the default Whisper model or give the path of a whisper.cpp model",
            factory: .speechToText { $0.engines.stt }),
    ]

    private static let textToSpeech: [ProviderEntry] = [
        ProviderEntry(
            capability: .textToSpeech, name: "elevenlabs", placement: .cloud,
            variables: ["ELEVENLABS_API_KEY", "ELEVENLABS_BASE_URL"], configuredBy: ["ELEVENLABS_API_KEY"],
            defaultModel: "eleven_flash_v2_5", remedy: "set ELEVENLABS_API_KEY",
            factory: .textToSpeech { context in
                ElevenLabsTextToSpeech(
                    configuration: context.service("ELEVENLABS", defaultBaseURL: ElevenLabsTextToSpeech.defaultBaseURL, model: "eleven_flash_v2_5"))
            }),
        ProviderEntry(
            capability: .textToSpeech, name: "deepgram", placement: .cloud,
            variables: ["DEEPGRAM_API_KEY", "DEEPGRAM_BASE_URL"], configuredBy: ["DEEPGRAM_API_KEY"],
            defaultModel: "aura-2-thalia-en", remedy: "set DEEPGRAM_API_KEY",
            factory: .textToSpeech { context in
                DeepgramTextToSpeech(configuration: context.service("DEEPGRAM", defaultBaseURL: DeepgramSpeechToText.defaultBaseURL, model: "aura-2-thalia-en"))
            }),
        ProviderEntry(
            capability: .textToSpeech, name: "openai", placement: .cloud,
            variables: ["OPENAI_API_KEY", "OPENAI_BASE_URL"], configuredBy: ["OPENAI_API_KEY"],
            defaultModel: "gpt-4o-mini-tts", remedy: "set OPENAI_API_KEY",
            factory: .textToSpeech { context in
                OpenAITextToSpeech(
                    configuration: context.service("OPENAI", defaultBaseURL: OpenAILanguageModel.Configuration.defaultBaseURL, model: "gpt-4o-mini-tts"))
            }),
        ProviderEntry(
            capability: .textToSpeech, name: "piper", placement: .selfHosted,
            variables: ["PIPER_BASE_URL"], configuredBy: ["PIPER_BASE_URL"], remedy: "set PIPER_BASE_URL",
            factory: .textToSpeech { context in
                PiperHTTPTextToSpeech(baseURL: context.baseURL ?? context.value("PIPER_BASE_URL") ?? "http://127.0.0.1:5000")
            }),
        // On device: the neural voice when installed, espeak-ng always (the last fallback).
        ProviderEntry(
            capability: .textToSpeech, name: "neural", placement: .onDevice,
            remedy: "run `parley models pull piper-joe` (scripts/setup does)", factory: .textToSpeech { $0.engines.neuralVoice }),
        ProviderEntry(
            capability: .textToSpeech, name: "espeak-ng", placement: .onDevice,
            remedy: "install espeak-ng", factory: .textToSpeech { $0.engines.tts }),
    ]

    private static let voiceActivity: [ProviderEntry] = [
        ProviderEntry(
            capability: .voiceActivity, name: "silero", placement: .onDevice,
            remedy: "install the Silero VAD weights",
            factory: .voiceActivity { SileroVoiceActivityDetector(weightsPath: $0.paths.sileroWeights.path) }),
        ProviderEntry(
            capability: .voiceActivity, name: "energy", placement: .onDevice,
            remedy: "always available", factory: .voiceActivity { _ in EnergyVoiceActivityDetector() }),
    ]
}
