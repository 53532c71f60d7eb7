/// Scores frames of audio for the presence of speech.
public protocol VoiceActivityDetector: Provider {
    /// The sample rate frames must be at.
    var sampleRate: Int { get }
    /// The number of samples in each frame.
    var frameSize: Int { get }
    /// Starts a new stream of frames (detectors with memory, like Silero's LSTM, keep it per
    /// session). Throws if the detector cannot run (e.g. its weights are missing).
    func makeSession() throws -> any VoiceActivitySession
}

/// The per-stream state of a detector. Feed frames in order.
public protocol VoiceActivitySession: Sendable {
    /// The probability in [0, 1] that `frame` (exactly `frameSize` samples) contains speech.
    mutating func speechProbability(of frame: [Float]) -> Float
}
