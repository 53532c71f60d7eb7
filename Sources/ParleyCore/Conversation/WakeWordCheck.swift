/// A second opinion on a wake phrase: whether the last seconds of audio really begin with it.
///
/// Checks run on device, on the audio a ``CheckedWakeWordSpotter`` keeps (a few seconds, let
/// go as new audio comes), and give a yes or no: no transcript is made, kept or sent.
public protocol WakePhraseCheck: Sendable {
    /// Whether `audio`, the last seconds up to the moment the spotter fired, holds the phrase;
    /// `detection` is the spotter's (its score may count with the check's own).
    func confirms(_ audio: AudioBuffer, detection: WakeWordDetection) async throws -> Bool
}

/// A wake word spotter whose detections a second, larger model confirms: the spotter (small,
/// run on every 80 ms of audio) proposes, the check (run only then) decides.
///
/// The spotter should keep listening after a detection (`WakeWordDetector`'s
/// `restartsOnDetection: false`): a detection the check refuses is forgotten, and the next one
/// is checked no sooner than ``recheckAfter`` seconds later, so that one phrase, proposed again
/// as more of it is heard, is checked a few times at most. A confirmed one resets the spotter.
///
/// It keeps the last ``window`` seconds of audio, for the check, and drops older audio frame
/// by frame; nothing else is kept.
public actor CheckedWakeWordSpotter: WakeWordSpotter {
    /// The first stage.
    public nonisolated let spotter: any WakeWordSpotter
    /// The second.
    public nonisolated let check: any WakePhraseCheck
    /// Seconds of audio up to the detection that the check hears.
    public nonisolated let window: Double
    /// Seconds after a refused detection before another is checked.
    public nonisolated let recheckAfter: Double

    private var recent = WakePreRoll()
    private var heard = 0.0
    private var nextCheck = 0.0
    private var refused = 0
    private var confirmed = 0

    /// Creates the pair. `window` and `recheckAfter` are seconds (at least 0.5 and 0).
    public init(spotter: any WakeWordSpotter, check: any WakePhraseCheck, window: Double = 2.4, recheckAfter: Double = 0.24) {
        self.spotter = spotter
        self.check = check
        self.window = window.isFinite ? max(0.5, window) : 2.4
        self.recheckAfter = recheckAfter.isFinite ? max(0, recheckAfter) : 0.24
    }

    /// The first stage's: the check adds no lateness of its own in audio (frames wait for it).
    public nonisolated var suggestedPreRoll: Double { spotter.suggestedPreRoll }

    /// How many detections the check refused and confirmed so far (for measurement).
    public var tally: (refused: Int, confirmed: Int) { (refused, confirmed) }

    public func listen(to frame: AudioBuffer) async throws -> WakeWordDetection? {
        recent.keep(frame, seconds: window)
        if frame.sampleRate > 0 { heard += Double(frame.samples.count) / Double(frame.sampleRate) }
        guard let detection = try await spotter.listen(to: frame), heard >= nextCheck, let audio = recent.snapshot() else { return nil }
        guard try await check.confirms(audio, detection: detection) else {
            refused += 1
            nextCheck = heard + recheckAfter
            return nil
        }
        confirmed += 1
        await reset()
        return detection
    }

    public func reset() async {
        await spotter.reset()
        recent.clear()
        heard = 0
        nextCheck = 0
    }
}
