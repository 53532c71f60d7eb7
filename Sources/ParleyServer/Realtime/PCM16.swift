import Foundation
import ParleyCore

/// Raw 16-bit little-endian mono PCM, the audio of OpenAI's speech and realtime APIs.
enum PCM16 {
    /// The samples of `audio` at `rate`, as bytes.
    static func encode(_ audio: AudioBuffer, rate: Int) -> [UInt8] {
        let samples = audio.sampleRate == rate ? audio.samples : audio.resampled(to: rate).samples
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = Int16(max(-1, min(1, sample)) * Float(Int16.max))
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return bytes
    }

    /// Audio at `rate` from bytes; `nil` for an odd number of bytes (a sample cut in half).
    static func decode(_ bytes: some Collection<UInt8>, rate: Int) -> AudioBuffer? {
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
