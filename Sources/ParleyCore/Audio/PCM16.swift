/// Raw 16-bit little-endian mono PCM: what OpenAI's speech and realtime APIs and Deepgram's
/// live API carry.
public enum PCM16 {
    /// `samples` as bytes.
    public static func encode(_ samples: [Float]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = Int16(max(-1, min(1, sample)) * Float(Int16.max))
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return bytes
    }

    /// The samples of `audio` at `rate`, as bytes.
    public static func encode(_ audio: AudioBuffer, rate: Int) -> [UInt8] {
        encode(audio.sampleRate == rate ? audio.samples : audio.resampled(to: rate).samples)
    }

    /// Audio at `rate` from bytes; `nil` for an odd number of bytes (a sample cut in half).
    public static func decode(_ bytes: some Collection<UInt8>, rate: Int) -> AudioBuffer? {
        guard bytes.count % 2 == 0 else { return nil }
        var samples = [Float]()
        samples.reserveCapacity(bytes.count / 2)
        var low: UInt8?
        for byte in bytes {
            if let first = low {
                samples.append(Float(Int16(bitPattern: UInt16(first) | UInt16(byte) << 8)) / 32_768)
                low = nil
            } else {
                low = byte
            }
        }
        return AudioBuffer(samples: samples, sampleRate: rate)
    }
}
