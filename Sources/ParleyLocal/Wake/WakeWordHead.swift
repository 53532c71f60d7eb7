import Foundation

/// The small network that tells "Hey Parley" from everything else, given the last 16 speech
/// embeddings: `sigmoid(relu(x · w1 + b1) · w2 + b2)`, `x` the embeddings in time order.
///
/// Trained by `scripts/wake_word/train.py` (numpy, fixed seed) and read from its file:
/// `PWWH`, then little-endian UInt32 version (1), UInt32 inputs, UInt32 hidden units, Float32
/// threshold, then Float32 `w1` (inputs × hidden, row-major), `b1`, `w2` and `b2`.
struct WakeWordHead: Sendable {
    let inputs: Int
    let hidden: Int
    /// The score at or above which the phrase counts as heard.
    let threshold: Float
    private let w1: [Float]
    private let b1: [Float]
    private let w2: [Float]
    private let b2: Float

    /// Reads the head in `data`.
    init(data: Data) throws(WakeWordError) {
        var reader = LittleEndianReader(data)
        guard data.count >= 20, data.prefix(4) == Data("PWWH".utf8) else {
            throw .badHead("it does not start with PWWH")
        }
        reader.skip(4)
        let version = reader.uint32(), inputs = Int(reader.uint32()), hidden = Int(reader.uint32())
        let threshold = reader.float()
        guard version == 1 else { throw .badHead("version \(version), not 1") }
        guard (1...100_000).contains(inputs), (1...1_024).contains(hidden) else {
            throw .badHead("\(inputs) inputs and \(hidden) hidden units")
        }
        let count = inputs * hidden + hidden + hidden + 1
        guard data.count == 20 + 4 * count else {
            throw .badHead("\(data.count) bytes where \(inputs) inputs and \(hidden) hidden units take \(20 + 4 * count)")
        }
        self.inputs = inputs
        self.hidden = hidden
        self.threshold = threshold
        w1 = reader.floats(inputs * hidden)
        b1 = reader.floats(hidden)
        w2 = reader.floats(hidden)
        b2 = reader.float()
    }

    /// The score of `x` (``inputs`` numbers), 0–1.
    func score(_ x: [Float]) -> Float {
        precondition(x.count == inputs, "the wake word head takes \(inputs) numbers")
        var hiddenValues = b1
        x.withUnsafeBufferPointer { x in
            w1.withUnsafeBufferPointer { w1 in
                hiddenValues.withUnsafeMutableBufferPointer { h in
                    for i in 0..<inputs where x[i] != 0 {
                        let value = x[i], row = i * hidden
                        for j in 0..<hidden { h[j] += value * w1[row + j] }
                    }
                }
            }
        }
        var logit = b2
        for j in 0..<hidden { logit += max(0, hiddenValues[j]) * w2[j] }
        return 1 / (1 + exp(-min(max(logit, -30), 30)))
    }
}

/// Reads little-endian numbers from the front of some bytes (bounds are checked by the caller).
private struct LittleEndianReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    mutating func skip(_ count: Int) { offset += count }

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    mutating func float() -> Float { Float(bitPattern: uint32()) }

    mutating func floats(_ count: Int) -> [Float] { (0..<count).map { _ in float() } }
}
