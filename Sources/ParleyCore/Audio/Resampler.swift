/// A band-limited sample-rate converter (windowed-sinc interpolation).
///
/// When downsampling, the sinc kernel is stretched so that its cut-off sits just below the
/// new Nyquist frequency, which keeps aliasing out of the speech band that STT engines use.
public struct Resampler: Sendable {
    /// Input frames per second.
    public let inputRate: Int
    /// Output frames per second.
    public let outputRate: Int
    /// Zero crossings of the sinc kernel on each side of the centre.
    public let halfWidth: Int

    /// Creates a converter from `inputRate` to `outputRate`.
    /// - Parameter halfWidth: kernel half-width in zero crossings; 16 is ample for speech.
    public init(from inputRate: Int, to outputRate: Int, halfWidth: Int = 16) {
        precondition(inputRate > 0 && outputRate > 0, "sample rates must be positive")
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.halfWidth = halfWidth
    }

    /// Converts `buffer` (which must be at ``inputRate``) to ``outputRate``.
    public func process(_ buffer: AudioBuffer) -> AudioBuffer {
        AudioBuffer(samples: process(buffer.samples), sampleRate: outputRate)
    }

    /// Converts raw samples at ``inputRate`` to ``outputRate``.
    public func process(_ input: [Float]) -> [Float] {
        guard inputRate != outputRate else { return input }
        guard !input.isEmpty else { return [] }
        let ratio = Double(outputRate) / Double(inputRate)
        // Cut-off relative to the input rate: below both Nyquist frequencies, with a margin.
        let cutoff = min(1.0, ratio) * 0.95
        let outputCount = Int((Double(input.count) * ratio).rounded(.down))
        let reach = Double(halfWidth) / cutoff
        var output = [Float](repeating: 0, count: outputCount)
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                for index in 0..<outputCount {
                    let centre = Double(index) / ratio
                    let first = max(0, Int((centre - reach).rounded(.up)))
                    let last = min(src.count - 1, Int((centre + reach).rounded(.down)))
                    guard first <= last else { continue }
                    var sum = 0.0
                    var weightSum = 0.0
                    for tap in first...last {
                        let distance = Double(tap) - centre
                        let weight = Self.kernel(distance * cutoff, halfWidth: Double(halfWidth))
                        sum += weight * Double(src[tap])
                        weightSum += weight
                    }
                    dst[index] = weightSum != 0 ? Float(sum / weightSum) : 0
                }
            }
        }
        return output
    }

    /// sinc(x) under a Blackman window spanning ±`halfWidth`.
    private static func kernel(_ x: Double, halfWidth: Double) -> Double {
        if abs(x) >= halfWidth { return 0 }
        let sinc = x == 0 ? 1.0 : sin(Double.pi * x) / (Double.pi * x)
        let phase = Double.pi * (x / halfWidth + 1)  // 0...2π across the window
        let window = 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase)
        return sinc * window
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
