import Foundation
import Logging
import ParleyCore

/// The on-device providers, built from a data directory.
public struct LocalEngines: Sendable {
    public let stt: WhisperSpeechToText
    public let llm: LlamaLanguageModel
    public let tts: EspeakTextToSpeech

    private let paths: ParleyPaths
    private let logger: Logger

    /// The voice activity detector: Silero when its weights are there, else the energy
    /// detector, with a warning saying why.
    public func voiceActivityDetector() -> any VoiceActivityDetector {
        let silero = SileroVoiceActivityDetector(weightsPath: paths.sileroWeights.path)
        if FileManager.default.fileExists(atPath: silero.weightsPath) { return silero }
        logger.warning("[VAD] Silero weights not found at \(silero.weightsPath), falling back to the energy detector (run scripts/setup)")
        return EnergyVoiceActivityDetector()
    }

    /// Model choices; `nil` means the default model in the data directory.
    public struct Overrides: Sendable {
        public var languageModel: String?
        public var whisperModel: String?
        public var voice: String?
        public var contextLength: Int
        public var threads: Int

        /// Creates overrides.
        public init(languageModel: String? = nil, whisperModel: String? = nil, voice: String? = nil,
                    contextLength: Int = 2048, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
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
        llm = LlamaLanguageModel(configuration: .init(
            modelPath: overrides.languageModel ?? paths.defaultLanguageModel.path,
            contextLength: overrides.contextLength, threads: overrides.threads))
        tts = EspeakTextToSpeech(defaultVoice: overrides.voice ?? "en-us")
    }
}
