import Foundation
import Logging
import ParleyCore
import ParleyOnnx
import ParleySilero

/// The on-device providers, built from a data directory.
public struct LocalEngines: Sendable {
    public let stt: WhisperSpeechToText
    /// Moonshine base on sherpa-onnx: in the on-device chain before whisper.cpp when chosen
    /// (`PARLEY_STT_MODEL=moonshine-base`), and there for `--provider moonshine`.
    public let moonshine: MoonshineSpeechToText
    /// The language model; a long-lived process can switch it to another file
    /// (``SwitchableLanguageModel/switchTo(_:)``).
    public let llm: SwitchableLanguageModel
    /// The neural voice (Piper voices on sherpa-onnx), first of the on-device voices.
    public let neuralVoice: PiperTextToSpeech
    /// espeak-ng, the on-device voice that is always there: the last fallback.
    public let tts: EspeakTextToSpeech
    /// Text embeddings on device (all-MiniLM-L6-v2 by default); its model may be missing
    /// (``LlamaEmbedder/availability()`` says so).
    public let embedder: LlamaEmbedder
    /// Smart Turn v3.2, the audio turn model (loaded on its first score); see ``audioTurnScorer()``.
    public let turnModel: SmartTurnModel

    private let paths: ParleyPaths
    private let logger: Logger

    /// The audio turn model when it can run: `nil` when its file is missing or ONNX Runtime is
    /// not part of this build, with a warning that the end of a turn is then judged by the
    /// words alone.
    public func audioTurnScorer() -> SmartTurnModel? {
        if turnModel.isAvailable { return turnModel }
        let why =
            OnnxRuntime.isBuilt
            ? "\(turnModel.file.path) is missing (run scripts/setup, or `parley models pull smart-turn-v3.2`)"
            : "ONNX Runtime is not built for this platform"
        logger.warning("the audio turn model (Smart Turn v3.2) is not used: \(why); the end of a turn is judged by the text score alone")
        return nil
    }

    /// A new "Hey Parley" detector (each conversation has its own: it keeps its features).
    /// - Throws: ``WakeWordError/missingModel(path:)`` when a file is missing (run
    ///   `scripts/setup`), ``WakeWordError/runtime(_:)`` when ONNX Runtime is not built here.
    public func wakeWordDetector(threshold: Double? = nil, restartsOnDetection: Bool = true) throws(WakeWordError) -> WakeWordDetector {
        let detector = WakeWordDetector(models: paths.models, threshold: threshold, restartsOnDetection: restartsOnDetection)
        guard OnnxRuntime.isBuilt else {
            throw .runtime(OnnxError(.unavailable, "ONNX Runtime is not built for this platform"))
        }
        for file in [detector.melFile, detector.embeddingFile, detector.headFile]
        where !FileManager.default.fileExists(atPath: file.path) {
            throw .missingModel(path: file.path)
        }
        return detector
    }

    /// The "Hey Parley" spotter a conversation waits with, loaded: the detector with
    /// whisper.cpp's English model (``stt``, the one the conversation hears with) as its second
    /// opinion (``WhisperWakePhraseCheck``). When that model is missing, the detector alone,
    /// with a warning that it then wakes more often on speech that is not the phrase.
    /// - Throws: ``WakeWordError`` as ``wakeWordDetector(threshold:restartsOnDetection:)``.
    public func wakeWordSpotter() async throws -> any WakeWordSpotter {
        guard FileManager.default.fileExists(atPath: stt.modelPath) else {
            logger.warning(
                "the wake word is heard by its small model alone, which wakes more often on speech that is not the phrase: \(stt.modelPath) is missing (run scripts/setup)"
            )
            let detector = try wakeWordDetector()
            try await detector.load()
            return detector
        }
        _ = try wakeWordDetector()  // its files are there
        return try await WhisperWakePhraseCheck.spotter(models: paths.models, stt: stt)
    }

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
        /// The embedding model's GGUF file (`nil`: ``ParleyPaths/defaultEmbeddingModel``).
        public var embeddingModel: String?

        /// Creates overrides.
        public init(
            languageModel: String? = nil, whisperModel: String? = nil, voice: String? = nil,
            contextLength: Int = 2048, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
            defaultSystemPrompt: String? = nil
        ) {
            self.defaultSystemPrompt = defaultSystemPrompt
            self.languageModel = languageModel
            self.whisperModel = whisperModel
            self.voice = voice
            self.contextLength = contextLength
            self.threads = threads
        }
    }

    /// Builds the providers for `paths`.
    public init(
        paths: ParleyPaths = .current(), overrides: Overrides = Overrides(),
        logger: Logger = Logger(label: "parley.local")
    ) {
        self.paths = paths
        self.logger = logger
        stt = WhisperSpeechToText(
            modelPath: overrides.whisperModel ?? paths.defaultWhisperModel.path,
            multilingualModelPath: paths.multilingualWhisperModel.path,
            detectable: LanguageSetting.detectable, threads: overrides.threads)
        moonshine = MoonshineSpeechToText(
            files: MoonshineModelFiles(folder: paths.models, name: paths.moonshineModelName),
            cache: paths.speechCache, threads: overrides.threads)
        var configuration = LlamaLanguageModel.Configuration(
            modelPath: overrides.languageModel ?? paths.defaultLanguageModel.path,
            contextLength: overrides.contextLength, threads: overrides.threads, defaultSystemPrompt: overrides.defaultSystemPrompt,
            endOfTurnThreshold: overrides.endOfTurnThreshold)
        configuration.promptMemoryDirectory = paths.home.appendingPathComponent("cache/prompts", isDirectory: true)
        llm = SwitchableLanguageModel(LlamaLanguageModel(configuration: configuration))
        // One thread: it scores at a pause, while the transcriber and the language model work.
        turnModel = SmartTurnModel(models: paths.models, threads: 1)
        embedder = LlamaEmbedder(
            configuration: .init(
                modelPath: overrides.embeddingModel ?? paths.defaultEmbeddingModel.path,
                threads: overrides.threads,
                name: overrides.embeddingModel == nil ? LlamaEmbedder.defaultModelName : nil))
        // `voice` names a neural voice (`joe`) or an espeak-ng one (`en-gb`); each engine takes
        // the names it has, and the other keeps its own default.
        // Up to two ONNX Runtime threads, as many as the cores other processes leave free:
        // measured here, a reply's first chunk came 91 ms after its text on two threads of an
        // idle machine against 133–148 ms on one, but with the cores shared one thread was
        // faster (first audio p50 264–305 ms against 439–499 ms on two).
        let neural = PiperTextToSpeech(
            folder: paths.models, cache: paths.voiceCache, defaultVoice: overrides.voice,
            threads: min(2, overrides.threads))
        // The default voice's names count even before it is pulled: asked for and missing, it
        // falls back to espeak-ng's own voice.
        let neuralNames = Set((neural.voices.flatMap(\.names) + PiperVoice(model: paths.defaultVoiceModel).names).map { $0.lowercased() })
        let isNeural = overrides.voice.map { neuralNames.contains($0.lowercased()) } ?? false
        neuralVoice = neural
        tts = EspeakTextToSpeech(defaultVoice: isNeural ? "en-us" : overrides.voice ?? "en-us", neuralVoices: neuralNames)
    }
}
