#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A band-limited sample-rate converter (windowed-sinc interpolation).
///
/// When downsampling, the sinc kernel is stretched so that its cut-off sits just below the
/// new Nyquist frequency, which keeps aliasing out of the speech band that STT engines use.
/// For rates with a small common period (22,050 → 16,000 repeats every 320 output samples)
/// the kernel is computed once per phase and reused.
public struct Resampler: Sendable {
    /// Input frames per second.
    public let inputRate: Int
    /// Output frames per second.
    public let outputRate: Int
    /// Zero crossings of the sinc kernel on each side of the centre.
    public let halfWidth: Int

    /// Creates a converter from `inputRate` to `outputRate`.
    /// - Parameters:
    ///   - inputRate: the sample rate of the audio that goes in, in hertz.
    ///   - outputRate: the sample rate of the audio that comes out, in hertz.
    ///   - halfWidth: kernel half-width in zero crossings; 16 is ample for speech.
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
        let divisor = Self.gcd(inputRate, outputRate)
        let up = outputRate / divisor, down = inputRate / divisor  // output n sits at input n·down/up
        let cutoff = min(1.0, Double(up) / Double(down)) * 0.95
        let reach = Int((Double(halfWidth) / cutoff).rounded(.up))
        let taps = 2 * reach + 1
        let outputCount = input.count * up / down
        let table = up <= 4096 ? phaseTable(up: up, down: down, cutoff: cutoff, reach: reach) : nil
        var output = [Float](repeating: 0, count: outputCount)
        var weights = [Double](repeating: 0, count: taps)
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                for index in 0..<outputCount {
                    let position = index * down
                    let base = position / up  // input sample at or before the centre
                    let phase = position % up
                    if let table {
                        for tap in 0..<taps { weights[tap] = table[phase * taps + tap] }
                    } else {
                        fillWeights(&weights, fraction: Double(phase) / Double(up), cutoff: cutoff, reach: reach)
                    }
                    var sum = 0.0, weightSum = 0.0
                    for tap in 0..<taps {
                        let sample = base - reach + tap
                        guard sample >= 0, sample < src.count else { continue }
                        sum += weights[tap] * Double(src[sample])
                        weightSum += weights[tap]
                    }
                    dst[index] = weightSum != 0 ? Float(sum / weightSum) : 0
                }
            }
        }
        return output
    }

    /// Kernel weights for every phase, `taps` per phase.
    func phaseTable(up: Int, down: Int, cutoff: Double, reach: Int) -> [Double] {
        let taps = 2 * reach + 1
        var table = [Double](repeating: 0, count: up * taps)
        var weights = [Double](repeating: 0, count: taps)
        for phase in 0..<up {
            fillWeights(&weights, fraction: Double(phase) / Double(up), cutoff: cutoff, reach: reach)
            for tap in 0..<taps { table[phase * taps + tap] = weights[tap] }
        }
        return table
    }

    /// The weights of input samples `base - reach ... base + reach` for an output sample that
    /// sits `fraction` of a sample after `base`.
    func fillWeights(_ weights: inout [Double], fraction: Double, cutoff: Double, reach: Int) {
        for tap in 0..<weights.count {
            let distance = Double(tap - reach) - fraction
            weights[tap] = Self.kernel(distance * cutoff, halfWidth: Double(halfWidth))
        }
    }

    /// sinc(x) under a Blackman window spanning ±`halfWidth`.
    private static func kernel(_ x: Double, halfWidth: Double) -> Double {
        if abs(x) >= halfWidth { return 0 }
        let sinc = x == 0 ? 1.0 : sin(Double.pi * x) / (Double.pi * x)
        let phase = Double.pi * (x / halfWidth + 1)  // 0...2π across the window
        let window = 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase)
        return sinc * window
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        b == 0 ? a : gcd(b, a % b)
    }
}
