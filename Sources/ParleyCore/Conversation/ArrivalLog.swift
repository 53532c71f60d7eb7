/// When each stretch of input audio arrived, so a sample's position in the stream can be
/// turned into the moment it was heard. Keeps the latest 2048 to 4096 frames: far more than
/// the time from a turn's last word to its endpoint.
struct ArrivalLog<Instant: InstantProtocol>: Sendable where Instant: Sendable {
    private var entries: [(samples: Int, at: Instant)] = []

    /// Audio up to sample `samples` (counted from the start of the stream) arrived `at`.
    mutating func record(samples: Int, at instant: Instant) {
        if let last = entries.last, last.samples == samples { return }
        entries.append((samples, instant))
        if entries.count > 4096 { entries.removeFirst(2048) }
    }

    /// When the audio holding sample `sample` arrived, if it is still kept.
    func arrival(of sample: Int) -> Instant? {
        entries.first { $0.samples >= sample }?.at
    }
}
