/// When a run of wake word scores has peaked: the chunk to fire on when a detection waits for
/// the head's best score (``WakeWordDetector/firesAtPeak``).
///
/// A run starts at the first score at or above the floor. It fires on the first later score
/// that is lower than the run's best (a score below the floor always is), or once it has risen for
/// ``longestRise`` chunks, and returns the run's best score; the next run starts afresh.
struct WakeScorePeak: Sendable, Equatable {
    /// Chunks (80 ms each) a run may keep rising before it fires anyway: 0.32 s.
    static let longestRise = 4

    private var best: Float?
    private var length = 0

    /// The run's best score when `score` ends it, else `nil`.
    mutating func next(_ score: Float, floor: Float) -> Float? {
        if let best, score < best || length >= Self.longestRise {
            self.best = nil
            length = 0
            return best
        }
        guard score >= floor else { return nil }
        best = max(best ?? score, score)
        length += 1
        return nil
    }
}
