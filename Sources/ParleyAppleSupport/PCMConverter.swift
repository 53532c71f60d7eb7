import ParleyCore

/// Brings audio as Apple's audio APIs deliver it (32-bit float or 16-bit integer samples,
/// one or more channels, interleaved or one array per channel, at the device's rate) to what
/// Parley's engines take: mono float samples at one rate. A converter is meant for one stream
/// (a microphone's buffers, one after another): it resamples across the buffers' edges.
public struct PCMConverter: Sendable {
    /// The rate the converted audio has.
    public let outputRate: Int
    private var resampler: StreamingResampler?

    /// A converter to `outputRate` frames per second (16 kHz: what speech recognition takes).
    public init(outputRate: Int = 16_000) {
        self.outputRate = outputRate
    }

    /// Mono audio at ``outputRate`` from one array per channel (a non-interleaved buffer);
    /// channels are averaged.
    public mutating func convert(channels: [[Float]], sampleRate: Int) -> AudioBuffer {
        guard let first = channels.first, sampleRate > 0 else { return AudioBuffer(samples: [], sampleRate: outputRate) }
        var mono = first
        if channels.count > 1 {
            let frames = channels.map(\.count).min() ?? 0
            mono = (0..<frames).map { frame in channels.reduce(Float(0)) { $0 + $1[frame] } / Float(channels.count) }
        }
        return resampled(mono, from: sampleRate)
    }

    /// Mono audio at ``outputRate`` from interleaved float samples of `channelCount` channels.
    public mutating func convert(interleaved samples: [Float], channelCount: Int, sampleRate: Int) -> AudioBuffer {
        guard channelCount > 0 else { return AudioBuffer(samples: [], sampleRate: outputRate) }
        let frames = samples.count / channelCount
        let channels = (0..<channelCount).map { channel in (0..<frames).map { samples[$0 * channelCount + channel] } }
        return convert(channels: channels, sampleRate: sampleRate)
    }

    /// Mono audio at ``outputRate`` from interleaved 16-bit samples.
    public mutating func convert(int16 samples: [Int16], channelCount: Int, sampleRate: Int) -> AudioBuffer {
        convert(interleaved: samples.map { Float($0) / 32_768 }, channelCount: channelCount, sampleRate: sampleRate)
    }

    /// The samples still held back for the resampler's window, at the end of a stream.
    public mutating func finish() -> AudioBuffer {
        defer { resampler = nil }
        return AudioBuffer(samples: resampler?.finish() ?? [], sampleRate: outputRate)
    }

    private mutating func resampled(_ mono: [Float], from rate: Int) -> AudioBuffer {
        guard rate != outputRate else { return AudioBuffer(samples: mono, sampleRate: rate) }
        if resampler?.resampler.inputRate != rate { resampler = StreamingResampler(from: rate, to: outputRate) }
        return AudioBuffer(samples: resampler?.process(mono) ?? [], sampleRate: outputRate)
    }
}
