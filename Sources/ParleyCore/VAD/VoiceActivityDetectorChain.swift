import Logging

/// Voice activity detection over an ordered list of detectors (the seeds' chain: Silero →
/// energy): a session comes from the first detector that can start one; each that cannot is
/// skipped with a warning saying why.
public struct VoiceActivityDetectorChain: VoiceActivityDetector {
    /// The detectors, most preferred first. All must share the sample rate and frame size of
    /// the first, or be skipped.
    public let detectors: [any VoiceActivityDetector]
    private let logger: Logger

    /// Creates a chain; `detectors` must not be empty.
    public init(_ detectors: [any VoiceActivityDetector], logger: Logger = Logger(label: "parley.chain.vad")) {
        precondition(!detectors.isEmpty, "a VAD chain needs at least one detector")
        self.detectors = detectors
        self.logger = logger
    }

    public var identity: ProviderIdentity { detectors[0].identity }
    public var sampleRate: Int { detectors[0].sampleRate }
    public var frameSize: Int { detectors[0].frameSize }

    public func availability() async -> Availability {
        await firstReady(detectors)
    }

    /// The first detector that can start a session now (skipped ones are logged), so callers
    /// can report which detector does the work.
    public func activeDetector() throws -> any VoiceActivityDetector {
        try firstWorking().detector
    }

    public func makeSession() throws -> any VoiceActivitySession {
        let (detector, session) = try firstWorking()
        guard detector.sampleRate == sampleRate, detector.frameSize == frameSize else {
            return Resampling(inner: session, from: (sampleRate, frameSize), to: (detector.sampleRate, detector.frameSize))
        }
        return session
    }

    private func firstWorking() throws -> (detector: any VoiceActivityDetector, session: any VoiceActivitySession) {
        var lastError: (any Error)?
        for (index, detector) in detectors.enumerated() {
            do {
                return (detector, try detector.makeSession())
            } catch {
                lastError = error
                let next = detectors.dropFirst(index + 1).first.map { "falling back to \($0.identity)" } ?? "and no fallback is left"
                logger.warning("[VAD] \(detector.identity): \(error), \(next)")
            }
        }
        throw lastError ?? ProviderError.invalidInput("no voice activity detector")
    }

    /// Adapts a session of another rate or frame size to the chain's.
    struct Resampling: VoiceActivitySession {
        var inner: any VoiceActivitySession
        let from: (rate: Int, frame: Int)
        let to: (rate: Int, frame: Int)

        mutating func speechProbability(of frame: [Float]) -> Float {
            var samples = Resampler(from: from.rate, to: to.rate).process(frame)
            samples = Array(samples.prefix(to.frame)) + [Float](repeating: 0, count: max(0, to.frame - samples.count))
            return inner.speechProbability(of: samples)
        }
    }
}
