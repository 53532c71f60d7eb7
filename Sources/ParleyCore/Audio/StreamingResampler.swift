/// A ``Resampler`` for audio that arrives in pieces (a microphone's buffers, network frames):
/// it keeps the input its kernel still needs between calls, so the output is the same, sample
/// for sample, as converting the whole stream at once — no seam at the piece borders.
///
/// A pure value: feed pieces with ``process(_:)``, then call ``finish()`` once for the last
/// few samples, which need the end of the stream.
public struct StreamingResampler: Sendable {
    /// The converter whose output this reproduces.
    public let resampler: Resampler
    private let up: Int
    private let down: Int
    private let reach: Int
    private let cutoff: Double
    private let table: [Double]?
    // Input from absolute sample `bufferStart` on; `received` samples in all so far.
    private var buffer: [Float] = []
    private var bufferStart = 0
    private var received = 0
    private var produced = 0
    private var weights: [Double]

    /// Creates a converter from `inputRate` to `outputRate`.
    public init(from inputRate: Int, to outputRate: Int, halfWidth: Int = 16) {
        resampler = Resampler(from: inputRate, to: outputRate, halfWidth: halfWidth)
        let divisor = Resampler.gcd(inputRate, outputRate)
        up = outputRate / divisor
        down = inputRate / divisor
        cutoff = min(1.0, Double(up) / Double(down)) * 0.95
        reach = Int((Double(halfWidth) / cutoff).rounded(.up))
        table = up <= 4096 ? resampler.phaseTable(up: up, down: down, cutoff: cutoff, reach: reach) : nil
        weights = [Double](repeating: 0, count: 2 * reach + 1)
    }

    /// Consumes the next piece of input and returns the output it completes.
    public mutating func process(_ input: [Float]) -> [Float] {
        guard up != down else { return input }
        buffer.append(contentsOf: input)
        received += input.count
        // Output n is complete once the input reaches past its kernel's right edge.
        var output: [Float] = []
        while (produced * down) / up + reach < received {
            output.append(sample(produced, limit: received))
            produced += 1
        }
        // Keep only what the next outputs' kernels reach back to.
        let needed = max(0, (produced * down) / up - reach)
        if needed > bufferStart {
            buffer.removeFirst(min(buffer.count, needed - bufferStart))
            bufferStart = needed
        }
        return output
    }

    /// Ends the stream and returns the remaining output.
    public mutating func finish() -> [Float] {
        guard up != down else { return [] }
        var output: [Float] = []
        let total = received * up / down
        while produced < total {
            output.append(sample(produced, limit: received))
            produced += 1
        }
        return output
    }

    /// Output sample `index`, from input samples below `limit` (as the batch converter does at
    /// the end of its buffer).
    private mutating func sample(_ index: Int, limit: Int) -> Float {
        let position = index * down
        let base = position / up
        let phase = position % up
        let taps = weights.count
        if let table {
            for tap in 0..<taps { weights[tap] = table[phase * taps + tap] }
        } else {
            resampler.fillWeights(&weights, fraction: Double(phase) / Double(up), cutoff: cutoff, reach: reach)
        }
        var sum = 0.0, weightSum = 0.0
        for tap in 0..<taps {
            let sample = base - reach + tap
            guard sample >= 0, sample < limit else { continue }
            sum += weights[tap] * Double(buffer[sample - bufferStart])
            weightSum += weights[tap]
        }
        return weightSum != 0 ? Float(sum / weightSum) : 0
    }
}
