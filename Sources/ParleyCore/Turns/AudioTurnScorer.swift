/// Scores how finished the user's turn sounds from the audio alone: intonation, rhythm, the
/// way a voice trails off or stops short (Smart Turn, on device).
public protocol AudioTurnScorer: Sendable {
    /// The probability in [0, 1] that the speaker of `speech` has finished their turn.
    /// `speech` is the utterance up to the pause, without the silence after it (a model
    /// trained on speech that ends where the voice stops scores lower when silence follows).
    func completion(of speech: AudioBuffer) async throws -> Double
}
