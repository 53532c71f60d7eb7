/// When each stretch of input audio arrived, so a sample's position in the stream can be
/// turned into the moment it was heard. Keeps the last minute of audio.
struct ArrivalLog<Instant: InstantProtocol>: Sendable where Instant: Sendable {
    private var entries: [(samples: Int, at: Instant)] = []

    /// Audio up to sample `samples` (counted from the start of the stream) arrived `at`.
    mutating func record(samples: Int, at instant: Instant, sampleRate: Int) {
        if let last = entries.last, last.samples == samples { return }
        entries.append((samples, instant))
        let horizon = samples - 60 * max(1, sampleRate)
        if let first = entries.first, first.samples < horizon, entries.count > 64 {
            entries.removeFirst(entries.firstIndex { $0.samples >= horizon } ?? 0)
        }
    }

    /// When the audio holding sample `sample` arrived, if it is still kept.
    func arrival(of sample: Int) -> Instant? {
        entries.first { $0.samples >= sample }?.at
    }
}
