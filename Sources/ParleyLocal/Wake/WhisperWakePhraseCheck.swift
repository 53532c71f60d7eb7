import ParleyCore

/// The wake word's second opinion on device: whisper.cpp's English model is led through "Hey
/// Parley" over the last seconds of audio (``WhisperSpeechToText/phraseScore(_:spellings:)``),
/// and the phrase counts when the model would all but have written it itself: its
/// ``PhraseScore/shortfall`` against the model's own first choices is at most
/// ``maximumShortfall``. Nothing is transcribed: the model only scores the phrase's tokens.
public struct WhisperWakePhraseCheck: WakePhraseCheck {
    /// The speech model (the one the conversation hears with serves: it is idle while the
    /// conversation waits for the phrase).
    public let stt: WhisperSpeechToText
    /// The ways Whisper may write the phrase.
    public let spellings: [String]
    /// The largest shortfall (natural log units, summed over the phrase's tokens) that counts.
    public let maximumShortfall: Double

    /// How "Hey Parley" may be written.
    public static let heyParley = ["Hey Parley", "Hey, Parley", "hey Parley", "Hey parley", "hey parley", "Hey, parley"]
    /// The standard ``maximumShortfall``: on the validation set (training voices, never fitted)
    /// the largest refusal that kept the phrase heard within one point of the detector alone
    /// (Benchmarks/README.md, "The wake word's second opinion").
    public static let standardShortfall = 10.0

    /// Creates the check.
    public init(stt: WhisperSpeechToText, spellings: [String] = Self.heyParley, maximumShortfall: Double = Self.standardShortfall) {
        self.stt = stt
        self.spellings = spellings
        self.maximumShortfall = maximumShortfall
    }

    public func confirms(_ audio: AudioBuffer) async throws -> Bool {
        try await stt.phraseScore(audio, spellings: spellings).shortfall <= maximumShortfall
    }
}
