/// A stretch of audio that contains speech, in samples of the audio it was found in.
public struct SpeechSegment: Sendable, Equatable {
    /// The first sample.
    public var start: Int
    /// One past the last sample.
    public var end: Int
    /// The sample rate the positions count in.
    public var sampleRate: Int

    /// Creates a segment.
    public init(start: Int, end: Int, sampleRate: Int) {
        self.start = start
        self.end = end
        self.sampleRate = sampleRate
    }

    /// Start in seconds.
    public var startTime: Double { Double(start) / Double(sampleRate) }
    /// End in seconds.
    public var endTime: Double { Double(end) / Double(sampleRate) }
    /// Length in seconds.
    public var duration: Double { endTime - startTime }
}
