import Foundation

/// What the choice of speech model needs to know about one: how well it hears English and how
/// long its final transcript takes. See ``SpeechModelChoice``.
public struct SpeechFacts: Sendable, Hashable {
    /// Which engine runs it.
    public enum Engine: String, Sendable, Hashable {
        /// whisper.cpp (a ggml file).
        case whisper
        /// Moonshine on sherpa-onnx's offline recognizer.
        case moonshine
    }

    /// The engine.
    public var engine: Engine
    /// Average word error rate in percent on the Hugging Face Open ASR Leaderboard's eight
    /// English sets (`huggingface/open_asr_leaderboard`, `scripts/data/en_shortform.csv`):
    /// the order of preference, lower first. The same for every machine, so it ranks models;
    /// what this project measured on its own recordings is in docs/ears.md.
    public var publishedWER: Double
    /// Milliseconds from the end of a 5 s utterance to its final transcript on two cores of
    /// this project's reference machine (a 2-core AMD EPYC), at two threads.
    public var finalTranscriptMilliseconds: Double
    /// Whether ``finalTranscriptMilliseconds`` was measured here (`Benchmarks/run --suite ears`)
    /// rather than estimated from a measured model of the same family.
    public var measured: Bool
    /// Whether it hears English only.
    public var englishOnly: Bool

    /// Creates the facts.
    public init(engine: Engine, publishedWER: Double, finalTranscriptMilliseconds: Double, measured: Bool, englishOnly: Bool) {
        self.engine = engine
        self.publishedWER = publishedWER
        self.finalTranscriptMilliseconds = finalTranscriptMilliseconds
        self.measured = measured
        self.englishOnly = englishOnly
    }
}
