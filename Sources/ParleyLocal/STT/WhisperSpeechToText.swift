import Foundation
import Logging
import ParleyCore

/// On-device speech-to-text: whisper.cpp with a Whisper model in its ggml format.
///
/// The model loads on first use and stays loaded. Work runs on the actor's own thread.
///
/// Two models may serve: the English-only one (``modelPath``, tiny.en by default) for speech
/// asked for in English, and the multilingual one (``multilingualModelPath``, base) for any
/// other language and for `auto`, when the language is detected and reported in
/// ``Transcript/language``. Without the multilingual model, every language is heard by the
/// English one (which writes English only), with a warning.
/// Streaming sessions re-transcribe the audio so far once a second (see
/// ``SpeechToTextProvider/transcribeByWindows(stream:options:partialInterval:)``).
public actor WhisperSpeechToText: SpeechToTextProvider {
    public nonisolated let identity: ProviderIdentity
    public nonisolated let preferredSampleRate = 16_000
    /// The model file.
    public nonisolated let modelPath: String
    /// The multilingual model file, for other languages than English and for `auto`.
    public nonisolated let multilingualModelPath: String?
    /// The languages `auto` chooses among (codes; `nil`: every language Whisper knows).
    public nonisolated let detectable: Set<String>?
    /// CPU threads.
    public nonisolated let threads: Int
    private let executor = ThreadExecutor(name: "parley.whisper")
    private var context: WhisperContext?
    private var multilingualContext: WhisperContext?
    private var warnedNoMultilingual = false
    private let logger = Logger(label: "parley.whisper")

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider; nothing is loaded until the first request.
    public init(
        modelPath: String, multilingualModelPath: String? = nil, detectable: Set<String>? = nil,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.modelPath = modelPath
        self.detectable = detectable
        self.multilingualModelPath = multilingualModelPath
        self.threads = max(1, threads)
        let name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
            .replacingOccurrences(of: "ggml-", with: "")
        self.identity = ProviderIdentity(name: "whisper.cpp", model: name, isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        guard WhisperContext.isBuilt else {
            return .unsupported(reason: "whisper.cpp is not built for this platform (an app enables Parley's AppleEngines trait for it)")
        }
        return FileManager.default.fileExists(atPath: modelPath)
            ? .ready
            : .missingModel(path: modelPath, hint: "download a whisper.cpp (ggml) model there or pass its path in the configuration")
    }

    /// Loads the model ahead of the first transcription; a failure shows on that transcription.
    public func prepare() async {
        try? load()
    }

    /// Loads the model now (otherwise it loads on the first request).
    public func load() throws(WhisperError) {
        _ = try loadedContext()
    }

    private func loadedContext() throws(WhisperError) -> WhisperContext {
        if let context { return context }
        let loaded = try WhisperContext(modelPath: modelPath)
        context = loaded
        return loaded
    }

    /// Loads the model that hears `language` now (otherwise it loads on the first request).
    public func load(language: String?) throws(WhisperError) {
        _ = try context(for: language)
    }

    /// The model for `language` (a code; `nil` or `auto`: detect): the English one for
    /// English, the multilingual one otherwise when it is installed.
    func context(for language: String?) throws(WhisperError) -> WhisperContext {
        if Self.wantsEnglishModel(language) { return try loadedContext() }
        if let multilingualContext { return multilingualContext }
        guard let path = multilingualModelPath, FileManager.default.fileExists(atPath: path) else {
            if !warnedNoMultilingual {
                warnedNoMultilingual = true
                logger.warning(
                    """
                    speech in '\(language ?? "auto")' is heard by the English-only Whisper model, which writes English only: \
                    the multilingual model is not installed (run scripts/setup, which converts Whisper base to \(multilingualModelPath ?? "ggml-base.bin"))
                    """)
            }
            return try loadedContext()
        }
        let loaded = try WhisperContext(modelPath: path)
        multilingualContext = loaded
        return loaded
    }

    /// Who hears with the multilingual model ("whisper.cpp (base)").
    nonisolated var multilingualIdentity: ProviderIdentity? {
        multilingualModelPath.map { path in
            ProviderIdentity(
                name: "whisper.cpp",
                model: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                    .replacingOccurrences(of: "ggml-", with: ""), isLocal: true)
        }
    }

    /// Whether speech in `language` goes to the English-only model: English asked for
    /// (`en`, `en-GB`).
    static func wantsEnglishModel(_ language: String?) -> Bool {
        guard let language else { return false }
        return language.lowercased() == "en" || language.lowercased().hasPrefix("en-") || language.lowercased().hasPrefix("en_")
    }

    /// Cancelling the calling task stops a transcription under way (whisper.cpp checks between
    /// steps) or not yet begun, with `CancellationError`: a partial transcript overtaken by the
    /// end of the utterance gives its turn on the compute lane back at once.
    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        guard !audio.isEmpty else { throw ProviderError.invalidInput("The audio is empty.") }
        try Task.checkCancellation()
        var language = options.language
        if let asked = language {
            do {
                language = try LanguageSetting(parsing: asked).code
            } catch {
                throw ProviderError.invalidInput(error.description)
            }
        }
        let samples = audio.resampled(to: preferredSampleRate).samples
        let context = try context(for: language)
        let wanted = language, detectable = self.detectable
        let abort = WhisperAbort()
        let threads = self.threads
        let (segments, heard, multilingual) = try await withTaskCancellationHandler {
            try withExtendedLifetime(abort) {
                try ComputeLane.shared.run {
                    // Cancelled while it waited for its turn: the turn is given back unused.
                    if abort.isRequested { throw CancellationError() }
                    do {
                        let segments = try context.transcribe(
                            samples, threads: CoreShare.shared.threads(upTo: threads), prompt: options.prompt,
                            words: options.wordTimestamps, translate: options.translate,
                            language: wanted, candidates: detectable, abort: abort)
                        return (segments, context.isMultilingual ? context.detectedLanguage ?? wanted : "en", context.isMultilingual)
                    } catch {
                        if abort.isRequested { throw CancellationError() }
                        throw error
                    }
                }
            }
        } onCancel: {
            abort.request()
        }
        let parts = Self.withoutEchoes(
            segments.map { Transcript.Segment(start: $0.start, end: $0.end, text: $0.text.trimmingCharacters(in: .whitespaces)) },
            samples: samples)
        let text = parts.map(\.text).joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        // Whisper writes tags such as "[BLANK_AUDIO]" or "(music)" where it hears no words.
        // The multilingual model names itself (a chain keeps a provider already named).
        let served = multilingual && modelPath != multilingualModelPath ? multilingualIdentity : nil
        guard !Self.isNonSpeechMarker(text) else { return Transcript(text: "", provider: served, language: heard) }
        // The words of the segments kept, without Whisper's tags.
        let kept = Set(parts.map { "\($0.start)|\($0.text)" })
        let words = segments.filter { kept.contains("\($0.start)|\($0.text.trimmingCharacters(in: .whitespaces))") }
            .flatMap(\.words).filter { !Self.isNonSpeechMarker($0.text) }
        return Transcript(text: text, segments: parts, provider: served, words: words, language: heard)
    }

    /// Whether `text` holds no words: nothing but Whisper's bracketed tags for non-speech
    /// ("[BLANK_AUDIO]", "(music)", "[ Silence ]"), spaces and full stops.
    static func isNonSpeechMarker(_ text: String) -> Bool {
        var depth = 0
        for character in text {
            switch character {
            case "[", "(": depth += 1
            case "]", ")": depth = max(0, depth - 1)
            case " ", ".", "\n", "\t": continue
            default: if depth == 0 { return false }
            }
        }
        return true
    }

    /// `segments` of the 16 kHz clip `samples` without those Whisper wrote where the clip has
    /// no speech. With the encoder fitted to the clip (``WhisperContext/audioContext(samples:modelContext:)``)
    /// the decoder sees silence after it and may say the clip again there ("What is 7 times 8?
    /// What is 7 times 8?", at 0–2 s and 2–4 s of a 2.3 s clip). Dropped: a segment that starts
    /// at or after the end of the audio (there is nothing in it), and one that repeats the
    /// words of the segment before it, or its last two words or more ("… the capital of France?
    /// is the capital of France."), over audio that is mostly quiet (someone who says a sentence
    /// twice is heard twice), and one after the first that starts in the clip's last
    /// ``quietTail`` with nothing at speech level from its start to the clip's end (tiny.en
    /// heard "Paris is the capital of France, and it is a beautiful city." and then "Okay.",
    /// or "The end of the video.", from 3.0 s of a 3.2 s clip whose last 0.15 s is quiet).
    /// Any other segment is kept: words are never dropped on a guess.
    static func withoutEchoes(_ segments: [Transcript.Segment], samples: [Float]) -> [Transcript.Segment] {
        let rate = 16_000.0
        let duration = Double(samples.count) / rate
        // The level of each 100 ms of the clip; a tenth of the loudest is speech.
        let window = 1_600
        let levels = stride(from: 0, to: samples.count, by: window).map { start in
            let piece = samples[start..<min(samples.count, start + window)]
            return (piece.reduce(Float(0)) { $0 + $1 * $1 } / Float(piece.count)).squareRoot()
        }
        let speech = (levels.max() ?? 0) / 10
        func mostlyQuiet(_ segment: Transcript.Segment) -> Bool {
            let first = max(0, Int(segment.start * rate) / window), last = min(levels.count, Int((segment.end * rate).rounded(.up)) / window + 1)
            guard first < last else { return true }
            let loud = levels[first..<last].filter { $0 >= speech }.count
            return Double(loud) < 0.3 * Double(last - first)
        }
        func silentToTheEnd(_ segment: Transcript.Segment) -> Bool {
            guard duration - segment.start <= quietTail else { return false }
            let first = max(0, Int(segment.start * rate) / window)
            return first >= levels.count || levels[first...].allSatisfy { $0 < speech }
        }
        var kept: [Transcript.Segment] = []
        for segment in segments where segment.start < duration {
            if let previous = kept.last, repeatsTail(segment.text, of: previous.text), mostlyQuiet(segment) { continue }
            if !kept.isEmpty, silentToTheEnd(segment) { continue }
            kept.append(segment)
        }
        return kept
    }

    /// Whether `text` says again the words of `previous`, or its last words (at least two):
    /// "What is the capital of France?" followed by "is the capital of France.".
    static func repeatsTail(_ text: String, of previous: String) -> Bool {
        let said = words(of: text).split(separator: " "), before = words(of: previous).split(separator: " ")
        guard !said.isEmpty, said.count <= before.count else { return false }
        guard said.count >= 2 || said.count == before.count else { return false }
        return before.suffix(said.count).elementsEqual(said)
    }

    /// How near the clip's end a segment after the first must start, over audio with nothing
    /// at speech level, to be taken for one Whisper made up in the quiet after the last word.
    static let quietTail = 0.5

    /// The words of `text`, for comparison: lowercased letters and digits, one space between.
    private static func words(of text: String) -> String {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: " ")
    }
}
