/// A block of mono audio as 32-bit float samples in [-1, 1] at a known sample rate.
///
/// Every engine in Parley exchanges audio in this shape; conversion from files and devices
/// (channel mixing, sample formats) happens at the edges, resampling through ``Resampler``.
public struct AudioBuffer: Sendable, Equatable {
    /// The samples, one per frame (mono).
    public var samples: [Float]
    /// Frames per second.
    public var sampleRate: Int

    /// Creates a buffer from mono samples at `sampleRate` frames per second.
    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// The duration in seconds.
    public var duration: Double {
        sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0
    }

    /// Whether the buffer holds no samples.
    public var isEmpty: Bool { samples.isEmpty }

    /// The loudest absolute sample value.
    public var peak: Float {
        samples.reduce(0) { max($0, abs($1)) }
    }

    /// The frames in `range` (clamped to the buffer) as a new buffer.
    public func slice(_ range: Range<Int>) -> AudioBuffer {
        let lower = max(0, min(range.lowerBound, samples.count))
        let upper = max(lower, min(range.upperBound, samples.count))
        return AudioBuffer(samples: Array(samples[lower..<upper]), sampleRate: sampleRate)
    }

    /// The same audio at `rate` frames per second (unchanged if it is already at that rate).
    public func resampled(to rate: Int) -> AudioBuffer {
        guard rate != sampleRate else { return self }
        return Resampler(from: sampleRate, to: rate).process(self)
    }

    /// Appends another buffer's audio, resampled to this buffer's rate if need be.
    public mutating func appendConverting(_ other: AudioBuffer) {
        samples.append(contentsOf: other.resampled(to: sampleRate).samples)
    }

    /// Appends another buffer's samples; both must share a sample rate.
    public mutating func append(_ other: AudioBuffer) {
        precondition(other.sampleRate == sampleRate || other.isEmpty, "sample rates differ")
        samples.append(contentsOf: other.samples)
    }
}
