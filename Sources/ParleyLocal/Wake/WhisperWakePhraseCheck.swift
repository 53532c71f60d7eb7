import Foundation
import ParleyCore

/// The wake word's second opinion on device: whisper.cpp's English model is led through "Hey
/// Parley" over the last seconds of audio (``WhisperSpeechToText/phraseScore(_:spellings:)``),
/// and the phrase counts when the model would all but have written it itself. Nothing is
/// transcribed: the model only scores the phrase's tokens.
///
/// The head's confidence counts too: the phrase is confirmed when
/// `shortfall − scoreWeight × ln(p / (1 − p)) ≤ maximumShortfall`, where `p` is the detector's
/// score and the ``PhraseScore/shortfall`` is how much likelier the model's own first choices
/// were. With the standard settings a detection at 0.5 may fall 5 short, one at 0.98 about 8.9
/// and one at the 0.4 floor about 4.6.
public struct WhisperWakePhraseCheck: WakePhraseCheck {
    /// The speech model (the one the conversation hears with serves: it is idle while the
    /// conversation waits for the phrase).
    public let stt: WhisperSpeechToText
    /// The ways Whisper may write the phrase.
    public let spellings: [String]
    /// The largest shortfall (natural log units, summed over the phrase's tokens) that counts
    /// for a detection scored 0.5.
    public let maximumShortfall: Double
    /// How much the detector's score (as log-odds) moves ``maximumShortfall``.
    public let scoreWeight: Double

    /// How "Hey Parley" may be written.
    public static let heyParley = ["Hey Parley", "Hey, Parley", "hey Parley", "Hey parley", "hey parley", "Hey, parley"]
    /// The standard ``maximumShortfall`` and ``scoreWeight``, and the detector score from which
    /// a detection is checked: chosen on the validation set (training voices, never fitted) as
    /// the fewest false accepts that kept the phrase heard within one point of the detector
    /// alone (Benchmarks/README.md, "The head trained on the detector's own features").
    public static let standardShortfall = 5.0
    /// See ``standardShortfall``.
    public static let standardScoreWeight = 1.0
    /// See ``standardShortfall``.
    public static let standardFloor = 0.4

    /// Creates the check.
    public init(
        stt: WhisperSpeechToText, spellings: [String] = Self.heyParley, maximumShortfall: Double = Self.standardShortfall,
        scoreWeight: Double = Self.standardScoreWeight
    ) {
        self.stt = stt
        self.spellings = spellings
        self.maximumShortfall = maximumShortfall
        self.scoreWeight = scoreWeight
    }

    /// The "Hey Parley" detector in `models` (Parley's models folder) with the standard check
    /// behind it, loaded, as a conversation waits with them: the detector proposes every peak of
    /// its score from ``standardFloor`` on and keeps listening; the check decides.
    /// - Throws: ``WakeWordError`` when a detector file is missing or unreadable, and
    ///   ``WhisperError`` when Whisper's model does not load.
    public static func spotter(models: URL, stt: WhisperSpeechToText) async throws -> CheckedWakeWordSpotter {
        let detector = WakeWordDetector(models: models, threshold: standardFloor, restartsOnDetection: false, firesAtPeak: true)
        try await detector.load()
        try await stt.load()
        return CheckedWakeWordSpotter(spotter: detector, check: WhisperWakePhraseCheck(stt: stt))
    }

    /// Whether a phrase scored `shortfall` by Whisper and `score` by the detector counts.
    public func counts(shortfall: Double, score: Double) -> Bool {
        let p = min(max(score.isFinite ? score : 0, 1e-4), 1 - 1e-4)
        return shortfall - scoreWeight * Foundation.log(p / (1 - p)) <= maximumShortfall
    }

    public func confirms(_ audio: AudioBuffer, detection: WakeWordDetection) async throws -> Bool {
        counts(shortfall: try await stt.phraseScore(audio, spellings: spellings).shortfall, score: detection.score)
    }
}
