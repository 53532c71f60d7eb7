/// Turns per-frame speech probabilities into speech segments, with hysteresis, a minimum
/// speech length, a silence time that ends a segment (endpointing) and padding.
///
/// A pure value: feed it probabilities frame by frame with ``process(probability:)`` and act
/// on the events it returns; ``finish()`` closes a segment still open at the end of the audio.
public struct SpeechSegmenter: Sendable {
    /// Tuning of the segmenter.
    public struct Configuration: Sendable, Equatable {
        /// A frame at or above this probability counts as speech.
        public var onThreshold: Float
        /// Once in speech, a frame below this probability counts as silence.
        public var offThreshold: Float
        /// Speech shorter than this (seconds) is ignored as a click or a breath.
        public var minSpeech: Double
        /// Silence this long (seconds) ends a segment.
        public var endSilence: Double
        /// Audio kept before and after the detected speech (seconds).
        public var padding: Double
        /// A segment is cut when it reaches this length (seconds).
        public var maxSpeech: Double

        /// Creates a configuration; the defaults are the conversation's (``Tunable``).
        public init(
            onThreshold: Float = Float(Tunable.speechThreshold.defaultValue), offThreshold: Float = 0.35, minSpeech: Double = 0.25,
            endSilence: Double = Tunable.endSilence.defaultValue, padding: Double = Tunable.speechPadding.defaultValue,
            maxSpeech: Double = Tunable.maxTurn.defaultValue
        ) {
            self.onThreshold = onThreshold
            self.offThreshold = offThreshold
            self.minSpeech = minSpeech
            self.endSilence = endSilence
            self.padding = padding
            self.maxSpeech = maxSpeech
        }
    }

    /// What happened at a frame.
    public enum Event: Sendable, Equatable {
        /// Speech began (the segment's start, padding included).
        case speechStarted(at: Int)
        /// A segment ended.
        case speechEnded(SpeechSegment)
    }

    /// The configuration in force.
    public let configuration: Configuration
    /// Samples per frame.
    public let frameSize: Int
    /// Sample rate the frames are at.
    public let sampleRate: Int

    private var frameIndex = 0
    private var speechStartFrame: Int?
    private var lastSpeechFrame = 0
    private var announced = false

    /// Creates a segmenter for frames of `frameSize` samples at `sampleRate`.
    public init(configuration: Configuration = Configuration(), frameSize: Int, sampleRate: Int) {
        self.configuration = configuration
        self.frameSize = frameSize
        self.sampleRate = sampleRate
    }

    private func frames(_ seconds: Double) -> Int {
        Int((seconds * Double(sampleRate) / Double(frameSize)).rounded(.up))
    }

    /// Whether a segment is open (speech has been heard and has not ended yet).
    public var isInSpeech: Bool { speechStartFrame != nil }

    /// Seconds of silence since the last speech frame of the open segment (0 while speech
    /// goes on); `nil` when no segment long enough to count is open.
    public var silence: Double? {
        guard speechStartFrame != nil, announced else { return nil }
        return Double(frameIndex - 1 - lastSpeechFrame) * Double(frameSize) / Double(sampleRate)
    }

    /// The open segment as it would end if it ended now; `nil` when none long enough is open.
    public var openSegment: SpeechSegment? {
        guard let start = speechStartFrame, announced else { return nil }
        let end = (lastSpeechFrame + 1) * frameSize + Int(configuration.padding * Double(sampleRate))
        return SpeechSegment(start: paddedStart(start), end: end, sampleRate: sampleRate)
    }

    /// Consumes the probability of the next frame and returns what it caused, if anything.
    public mutating func process(probability: Float) -> Event? {
        defer { frameIndex += 1 }
        if let start = speechStartFrame {
            if probability >= configuration.offThreshold { lastSpeechFrame = frameIndex }
            let spoken = lastSpeechFrame - start + 1
            if !announced, spoken >= frames(configuration.minSpeech) {
                announced = true
                return .speechStarted(at: paddedStart(start))
            }
            let silent = frameIndex - lastSpeechFrame
            if silent >= frames(configuration.endSilence) || frameIndex - start + 1 >= frames(configuration.maxSpeech) {
                return close()
            }
            return nil
        }
        if probability >= configuration.onThreshold {
            speechStartFrame = frameIndex
            lastSpeechFrame = frameIndex
            announced = false
            if frames(configuration.minSpeech) <= 1 {
                announced = true
                return .speechStarted(at: paddedStart(frameIndex))
            }
        }
        return nil
    }

    /// Ends the stream, returning the open segment if it was long enough.
    public mutating func finish() -> SpeechSegment? {
        guard speechStartFrame != nil else { return nil }
        if case .speechEnded(let segment) = close() { return segment }
        return nil
    }

    private func paddedStart(_ frame: Int) -> Int {
        max(0, frame * frameSize - Int(configuration.padding * Double(sampleRate)))
    }

    private mutating func close() -> Event? {
        guard let start = speechStartFrame else { return nil }
        speechStartFrame = nil
        let wasLongEnough = announced
        announced = false
        guard wasLongEnough else { return nil }
        let end = (lastSpeechFrame + 1) * frameSize + Int(configuration.padding * Double(sampleRate))
        return .speechEnded(SpeechSegment(start: paddedStart(start), end: end, sampleRate: sampleRate))
    }
}
