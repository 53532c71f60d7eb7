/// ITU-T G.711 companding: 8-bit μ-law (North America, Japan) and A-law (elsewhere), the
/// telephone network's audio, one byte per sample at 8 kHz.
public enum G711: String, Sendable, Equatable, CaseIterable {
    /// μ-law.
    case muLaw = "g711_ulaw"
    /// A-law.
    case aLaw = "g711_alaw"

    /// The sample rate G.711 audio is sent at.
    public static let sampleRate = 8_000

    /// Samples in [-1, 1] from G.711 bytes.
    public func decode(_ bytes: some Sequence<UInt8>) -> [Float] {
        bytes.map { byte in
            let linear = self == .muLaw ? Self.expandMuLaw(byte) : Self.expandALaw(byte)
            return Float(linear) / 32_768
        }
    }

    /// G.711 bytes from samples in [-1, 1] (louder samples are clipped).
    public func encode(_ samples: some Sequence<Float>) -> [UInt8] {
        samples.map { sample in
            let linear = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
            return self == .muLaw ? Self.compressMuLaw(linear) : Self.compressALaw(linear)
        }
    }

    /// Audio at 8 kHz from G.711 bytes.
    public func decodeBuffer(_ bytes: some Sequence<UInt8>) -> AudioBuffer {
        AudioBuffer(samples: decode(bytes), sampleRate: Self.sampleRate)
    }

    /// G.711 bytes from `audio`, resampled to 8 kHz first.
    public func encode(_ audio: AudioBuffer) -> [UInt8] {
        encode(audio.resampled(to: Self.sampleRate).samples)
    }

    // MARK: - μ-law (14-bit magnitude, bias 0x84, bits inverted)

    private static let muLawBias: Int32 = 0x84
    private static let muLawClip: Int32 = 32_635

    static func compressMuLaw(_ sample: Int16) -> UInt8 {
        var value = Int32(sample)
        let sign: UInt8 = value < 0 ? 0x80 : 0
        if value < 0 { value = -value }
        value = min(value, muLawClip) + muLawBias
        let exponent = max(0, bitLength(value >> 7) - 1)
        let mantissa = UInt8((value >> (exponent + 3)) & 0x0F)
        return ~(sign | UInt8(exponent) << 4 | mantissa)
    }

    static func expandMuLaw(_ byte: UInt8) -> Int16 {
        let value = ~byte
        let exponent = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        let magnitude = ((mantissa << 3) + muLawBias) << exponent - muLawBias
        return Int16(value & 0x80 != 0 ? -magnitude : magnitude)
    }

    // MARK: - A-law (13-bit magnitude, even bits inverted)

    static func compressALaw(_ sample: Int16) -> UInt8 {
        var value = Int32(sample) >> 3  // 13 bits
        let sign: UInt8 = value >= 0 ? 0x80 : 0
        if value < 0 { value = -value - 1 }
        value = min(value, 0x0FFF)
        let encoded: UInt8
        if value < 32 {
            encoded = UInt8(value >> 1)
        } else {
            let exponent = bitLength(value) - 5
            encoded = UInt8(exponent) << 4 | UInt8((value >> exponent) & 0x0F)
        }
        return (sign | encoded) ^ 0x55
    }

    static func expandALaw(_ byte: UInt8) -> Int16 {
        let value = byte ^ 0x55
        let exponent = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        var magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        if value & 0x80 == 0 { magnitude = -magnitude }
        return Int16(magnitude)
    }

    /// The number of bits `value` (not negative) needs.
    private static func bitLength(_ value: Int32) -> Int32 {
        Int32(32 - value.leadingZeroBitCount)
    }
}
