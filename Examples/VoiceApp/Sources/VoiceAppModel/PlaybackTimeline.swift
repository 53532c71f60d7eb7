/// How much of a reply the listener has heard: the audio scheduled on a player plays from the
/// moment the reply began, one buffer after another, so what was heard by a given moment is the
/// time since the start, at most what was scheduled. An `AudioOutput` over a player that does
/// not report its position (the app's, over `AppleMicrophone`) answers `stop()` and `finish()`
/// with it.
public struct PlaybackTimeline: Sendable, Equatable {
    /// When the reply began, in seconds on the caller's clock; `nil` before the first buffer.
    public private(set) var start: Double?
    /// Seconds of audio scheduled since then.
    public private(set) var scheduled: Double = 0

    /// An empty timeline.
    public init() {}

    /// A new reply: nothing scheduled.
    public mutating func begin() {
        start = nil
        scheduled = 0
    }

    /// `seconds` of audio scheduled at `now`; playback (re)starts at `now` when the player had
    /// run dry, so a pause between buffers is not counted as heard.
    public mutating func schedule(_ seconds: Double, at now: Double) {
        if let start, start + scheduled >= now {
            scheduled += seconds
        } else {
            // The player was empty (or this is the first buffer): what was heard so far stands.
            let heard = scheduled
            start = now - heard
            scheduled = heard + seconds
        }
    }

    /// The seconds heard by `now`.
    public func heard(at now: Double) -> Double {
        guard let start else { return 0 }
        return min(scheduled, max(0, now - start))
    }

    /// The seconds still to play after `now`.
    public func remaining(at now: Double) -> Double {
        scheduled - heard(at: now)
    }
}
