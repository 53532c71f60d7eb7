import Foundation
import ParleyCore

/// On-device speech-to-text with Moonshine (English, MIT) run by sherpa-onnx's offline
/// recognizer (Apache-2.0, its own ONNX Runtime: the library the neural voice already uses).
///
/// Moonshine has no fixed window: its encoder's work grows with the audio, so a short command
/// costs little. It was trained on speech without long silences around it, and given a clip
/// with a second or more of quiet before the words it may end at once and say nothing
/// (measured on recordings of whispered and falsetto speech), so the quiet at either end
/// beyond ``margin`` is left out before transcribing; quiet in the middle stays. Audio longer
/// than ``longestPiece`` is transcribed in pieces cut at the quietest moment near each limit.
/// The model loads on first use and stays loaded; work runs on the actor's own thread, taking
/// turns with the other on-device engines (``ComputeLane``).
public actor MoonshineSpeechToText: SpeechToTextProvider {
    public nonisolated let identity: ProviderIdentity
    public nonisolated let preferredSampleRate = 16_000
    /// The model's files.
    public nonisolated let files: MoonshineModelFiles
    /// Where the tokens file sherpa-onnx reads is kept (made from the tokenizer on first use).
    public nonisolated let cache: URL
    /// CPU threads of the ONNX Runtime (fixed when the model loads).
    public nonisolated let threads: Int
    /// Quiet kept before the first and after the last loud moment, in seconds.
    public static let margin = 0.5
    /// The longest audio transcribed in one piece, in seconds.
    public static let longestPiece = 28.0
    private let executor = ThreadExecutor(name: "parley.moonshine")
    private var context: MoonshineContext?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider over `files`; nothing is loaded until the first request.
    public init(files: MoonshineModelFiles, cache: URL, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.files = files
        self.cache = cache
        self.threads = max(1, threads)
        let name = files.encoder.deletingPathExtension().lastPathComponent.replacingOccurrences(of: "-encoder", with: "")
        self.identity = ProviderIdentity(name: "sherpa-onnx", model: name, isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        guard MoonshineContext.isBuilt else {
            return .unsupported(reason: "Moonshine's engine (sherpa-onnx) is not built for this platform")
        }
        guard let missing = files.firstMissing else { return .ready }
        return .missingModel(path: missing.path, hint: "run `parley models pull moonshine-base` (scripts/setup does)")
    }

    /// Loads the model ahead of the first transcription; a failure shows on that transcription.
    public func prepare() async {
        try? load()
    }

    /// Loads the model now (otherwise it loads on the first request).
    public func load() throws(MoonshineError) {
        _ = try loadedContext()
    }

    private func loadedContext() throws(MoonshineError) -> MoonshineContext {
        if let context { return context }
        if let missing = files.firstMissing { throw .modelNotFound(path: missing.path) }
        let tokens = try files.preparedTokens(cache: cache)
        let loaded = try MoonshineContext(files: files, tokens: tokens, threads: threads)
        context = loaded
        return loaded
    }

    /// The words of `audio`; an empty transcript for empty or silent audio. Moonshine gives
    /// no timings: the transcript's one segment spans the audio, and word timings (which
    /// `options` may ask for) are not given.
    /// A cancelled task's transcription stops before its next piece (ONNX Runtime cannot be
    /// stopped within one), giving its turn on the compute lane back: a stale partial
    /// transcript does not hold up the one that replaces it.
    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) throws -> Transcript {
        try Task.checkCancellation()
        let samples = audio.resampled(to: preferredSampleRate).samples
        guard let speech = Self.speechRange(samples, rate: preferredSampleRate) else { return Transcript(text: "") }
        let context = try loadedContext()
        let pieces = Self.pieces(of: speech, in: samples, rate: preferredSampleRate)
        let texts = try ComputeLane.shared.run {
            try pieces.map { piece in
                try Task.checkCancellation()
                return try context.transcribe(Array(samples[piece]))
            }
        }
        let text = Self.cleaned(texts.joined(separator: " "))
        guard !text.isEmpty else { return Transcript(text: "") }
        let duration = Double(samples.count) / Double(preferredSampleRate)
        return Transcript(text: text, segments: [Transcript.Segment(start: 0, end: duration, text: text)])
    }

    /// The sample range from ``margin`` before the first 20 ms frame at least a tenth as loud
    /// (RMS) as the loudest to ``margin`` after the last; `nil` when the audio is empty or
    /// silent (the loudest frame below -80 dBFS).
    static func speechRange(_ samples: [Float], rate: Int) -> Range<Int>? {
        let frame = rate / 50
        let levels = frameLevels(samples, frame: frame)
        guard let loudest = levels.max(), loudest >= 1e-4 else { return nil }
        let threshold = loudest / 10
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        let margin = Int(Self.margin * Double(rate))
        return max(0, first * frame - margin)..<min(samples.count, (last + 1) * frame + margin)
    }

    /// The RMS level of each `frame` samples.
    private static func frameLevels(_ samples: [Float], frame: Int) -> [Float] {
        stride(from: 0, to: samples.count, by: frame).map { start in
            let piece = samples[start..<min(samples.count, start + frame)]
            return (piece.reduce(Float(0)) { $0 + $1 * $1 } / Float(piece.count)).squareRoot()
        }
    }

    /// `range` of `samples` cut into pieces of at most ``longestPiece`` seconds, each cut at
    /// the quietest 100 ms of the last five seconds before the limit.
    static func pieces(of range: Range<Int>, in samples: [Float], rate: Int) -> [Range<Int>] {
        let longest = Int(longestPiece * Double(rate)), search = 5 * rate, step = rate / 10
        var pieces: [Range<Int>] = []
        var start = range.lowerBound
        while range.upperBound - start > longest {
            let limit = start + longest
            let candidates = stride(from: limit - search, to: limit - step, by: step)
            let levels = candidates.map { ($0, frameLevels(Array(samples[$0..<$0 + step]), frame: step).first ?? 0) }
            let cut = (levels.min { $0.1 < $1.1 }?.0 ?? limit - step) + step / 2
            pieces.append(start..<cut)
            start = cut
        }
        pieces.append(start..<range.upperBound)
        return pieces
    }

    /// `text` with SentencePiece's word marks as spaces and single spaces between words.
    static func cleaned(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{2581}", with: " ")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
