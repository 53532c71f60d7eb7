/// What the speaker played, waiting to be matched with the microphone audio captured meanwhile:
/// the far-end reference of an ``EchoCanceller``.
///
/// The playing side appends each block as it goes to the speaker; the capturing side takes as
/// many samples as each microphone frame holds (silence when nothing played). Both sides run at
/// the pace of real time, so the queue stays short; a reply that is paused or cut is
/// ``clear()``ed so later audio does not line up with what was never played.
public actor FarEndBuffer {
    /// The rate the reference is kept at (the microphone's).
    public nonisolated let sampleRate: Int
    /// The most samples kept; older ones are dropped (the capturing side fell behind).
    public nonisolated let capacity: Int
    private var samples: [Float] = []
    private var start = 0
    private var resampler: StreamingResampler?

    /// A reference at `sampleRate` holding at most `maximumSeconds` of audio.
    public init(sampleRate: Int, maximumSeconds: Double = 30) {
        self.sampleRate = sampleRate
        self.capacity = max(1, Int((Double(sampleRate) * min(max(maximumSeconds, 0.1), 600)).rounded()))
    }

    /// Adds audio that was sent to the speaker, converted to ``sampleRate``.
    public func append(_ audio: AudioBuffer) {
        guard !audio.isEmpty else { return }
        var converted = audio.samples
        if audio.sampleRate != sampleRate {
            if resampler?.resampler.inputRate != audio.sampleRate {
                resampler = StreamingResampler(from: audio.sampleRate, to: sampleRate)
            }
            converted = resampler?.process(audio.samples) ?? []
        }
        samples.append(contentsOf: converted)
        let excess = (samples.count - start) - capacity
        if excess > 0 { start += excess }
        compact()
    }

    /// The next `count` samples of the reference, silence where nothing was played.
    public func take(_ count: Int) -> [Float] {
        guard count > 0 else { return [] }
        let available = min(count, samples.count - start)
        var taken = Array(samples[start..<(start + available)])
        start += available
        if available < count { taken += [Float](repeating: 0, count: count - available) }
        compact()
        return taken
    }

    /// Seconds of reference waiting to be matched.
    public var pendingSeconds: Double { Double(samples.count - start) / Double(sampleRate) }

    /// Drops what is waiting (the reply was paused or cut: nothing more of it plays).
    public func clear() {
        samples.removeAll(keepingCapacity: true)
        start = 0
        resampler = nil
    }

    private func compact() {
        if start > 16_384, start * 2 > samples.count {
            samples.removeFirst(start)
            start = 0
        }
    }
}
