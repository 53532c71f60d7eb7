import Foundation
import Logging
import ParleyCore

/// The on-device providers, built from a data directory.
public struct LocalEngines: Sendable {
    public let stt: WhisperSpeechToText
    /// The language model; a long-lived process can switch it to another file
    /// (``SwitchableLanguageModel/switchTo(_:)``).
    public let llm: SwitchableLanguageModel
    public let tts: EspeakTextToSpeech

    private let paths: ParleyPaths
    private let logger: Logger

    /// The voice activity detector chain: Silero, then the energy detector when Silero's
    /// weights are missing (with a warning saying so).
    public func voiceActivityDetector() -> VoiceActivityDetectorChain {
        VoiceActivityDetectorChain(
            [SileroVoiceActivityDetector(weightsPath: paths.sileroWeights.path), EnergyVoiceActivityDetector()],
            logger: logger)
    }

    /// Model choices; `nil` means the default model in the data directory.
    public struct Overrides: Sendable {
        public var languageModel: String?
        public var whisperModel: String?
        public var voice: String?
        public var contextLength: Int
        public var threads: Int
        /// The system prompt the language model uses when a request has none.
        public var defaultSystemPrompt: String?
        /// The language model's own end-of-turn threshold, when it is known (see
        /// ``LlamaLanguageModel/Configuration/endOfTurnThreshold``).
        public var endOfTurnThreshold: Double?

        /// Creates overrides.
        public init(languageModel: String? = nil, whisperModel: String? = nil, voice: String? = nil,
                    contextLength: Int = 2048, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                    defaultSystemPrompt: String? = nil) {
            self.defaultSystemPrompt = defaultSystemPrompt
            self.languageModel = languageModel
            self.whisperModel = whisperModel
            self.voice = voice
            self.contextLength = contextLength
            self.threads = threads
        }
    }

    /// Builds the providers for `paths`.
    public init(paths: ParleyPaths = .current(), overrides: Overrides = Overrides(),
                logger: Logger = Logger(label: "parley.local")) {
        self.paths = paths
        self.logger = logger
        stt = WhisperSpeechToText(modelPath: overrides.whisperModel ?? paths.defaultWhisperModel.path, threads: overrides.threads)
        var configuration = LlamaLanguageModel.Configuration(
            modelPath: overrides.languageModel ?? paths.defaultLanguageModel.path,
            contextLength: overrides.contextLength, threads: overrides.threads, defaultSystemPrompt: overrides.defaultSystemPrompt,
            endOfTurnThreshold: overrides.endOfTurnThreshold)
        configuration.promptMemoryDirectory = paths.home.appendingPathComponent("cache/prompts", isDirectory: true)
        llm = SwitchableLanguageModel(LlamaLanguageModel(configuration: configuration))
        tts = EspeakTextToSpeech(defaultVoice: overrides.voice ?? "en-us")
    }
}
