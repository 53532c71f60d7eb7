import Foundation
import ParleyCore
import ParleyOnnx

/// Smart Turn v3.2 (Pipecat, BSD-2-Clause): whether a speaker has finished their turn, from
/// the last 8 seconds of their voice, on device under ONNX Runtime.
///
/// The model is Whisper tiny's encoder (int8) and a small head: its input is the log-mel
/// spectrogram of 8 s of 16 kHz audio (``WhisperLogMel``), the speech left-padded with zeros
/// when shorter; its output, named `logits` but already passed through a sigmoid in the graph,
/// is the probability that the turn is complete (0.5 is the model's own threshold). Feed it
/// the speech up to the pause, not the silence after (the score falls when silence is
/// included). About 70 ms on one core; the model loads on first use and stays loaded; work
/// runs on the actor's own thread.
public actor SmartTurnModel: AudioTurnScorer {
    /// The model's file name (the catalog's `smart-turn-v3.2`, from the pipecat-ai wheel).
    public static let fileName = "smart-turn-v3.2-cpu.onnx"
    /// The seconds of audio the model hears.
    public static let seconds = 8
    /// The model's own threshold: at or above it the turn counts as complete.
    public static let threshold = 0.5

    /// The model file.
    public nonisolated let file: URL
    /// ONNX Runtime's threads for the model (fixed when it loads).
    public nonisolated let threads: Int
    private let executor = ThreadExecutor(name: "parley.smart-turn")
    private let features = WhisperLogMel(seconds: SmartTurnModel.seconds)
    private var session: OnnxSession?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A scorer over the model at `file`; nothing is loaded until the first score.
    public init(file: URL, threads: Int = 1) {
        self.file = file
        self.threads = max(1, threads)
    }

    /// A scorer over the model in `models` (Parley's models folder).
    public init(models: URL, threads: Int = 1) {
        self.init(file: models.appendingPathComponent(Self.fileName), threads: threads)
    }

    /// Whether the model file is there (and ONNX Runtime part of this build).
    public nonisolated var isAvailable: Bool {
        OnnxRuntime.isBuilt && FileManager.default.fileExists(atPath: file.path)
    }

    /// Loads the model now (otherwise it loads on the first score).
    public func load() throws(OnnxError) {
        _ = try loadedSession()
    }

    private func loadedSession() throws(OnnxError) -> OnnxSession {
        if let session { return session }
        let loaded = try OnnxSession(contentsOf: file, options: OnnxSessionOptions(threads: threads))
        session = loaded
        return loaded
    }

    /// The probability that the turn is complete after `speech` (at any rate: resampled to
    /// 16 kHz), the utterance up to the pause.
    public func completion(of speech: AudioBuffer) throws -> Double {
        try Task.checkCancellation()
        return try probability(of: speech.resampled(to: WhisperLogMel.sampleRate).samples)
    }

    /// A score and what it cost.
    public struct Score: Sendable, Equatable {
        /// The probability that the turn is complete.
        public var probability: Double
        /// Time spent on the log-mel features (Swift).
        public var features: Duration
        /// Time spent in ONNX Runtime.
        public var inference: Duration
    }

    /// The probability that the turn is complete after `samples` (16 kHz mono, the speech up
    /// to the pause): the model's output for the last ``seconds`` of them.
    public func probability(of samples: [Float]) throws(OnnxError) -> Double {
        try score(of: samples).probability
    }

    /// ``probability(of:)`` with the time of each part.
    public func score(of samples: [Float]) throws(OnnxError) -> Score {
        let session = try loadedSession()
        let clock = ContinuousClock()
        let started = clock.now
        let values = features.features(of: Self.window(samples, count: features.sampleCount))
        let featured = clock.now
        let input = OnnxTensor(shape: [1, WhisperLogMel.melBins, features.frameCount], values: values)
        // Not on the compute lane: one ONNX Runtime thread for ~70 ms, which waiting behind the
        // transcription, the prompt's evaluation and the reply held up by far more (below).
        let outputs = try session.run(["input_features": input], outputs: ["logits"])
        let inferred = clock.now
        guard let probability = outputs["logits"]?.values.first else {
            throw OnnxError(.run, "Smart Turn gave no probability")
        }
        return Score(
            probability: Double(min(max(probability, 0), 1)), features: started.duration(to: featured),
            inference: featured.duration(to: inferred))
    }

    /// The last `count` samples, left-padded with zeros when there are fewer.
    static func window(_ samples: [Float], count: Int) -> [Float] {
        if samples.count >= count { return Array(samples.suffix(count)) }
        return [Float](repeating: 0, count: count - samples.count) + samples
    }
}
