import Foundation

/// Silero VAD v6 (16 kHz) computed in plain Swift.
///
/// The network, as in the official ONNX graph's 16 kHz branch: the 64 samples before the
/// chunk plus the 512-sample chunk, reflect-padded by 64 on the right (640 samples) → STFT as a
/// convolution (256-sample kernel, stride 128: 4 frames × 129 bins, magnitude) → four 1-D
/// convolutions with kernel 3 and padding 1, each followed by ReLU (129→128 stride 1, 128→64
/// stride 2, 64→64 stride 2, 64→128 stride 1) → an LSTM cell of 128 (state carried between
/// chunks) → ReLU → 1×1 convolution → sigmoid.
public struct SileroVADModel: Sendable {
    /// Samples per chunk.
    public static let chunkSize = 512
    /// Samples of the previous chunk prepended as context.
    public static let contextSize = 64
    static let hidden = 128
    static let bins = 129
    static let window = 256
    static let hop = 128
    static let frames = 4

    /// The recurrent state of one audio stream. Start each stream with a fresh value.
    public struct State: Sendable, Equatable {
        var h = [Float](repeating: 0, count: SileroVADModel.hidden)
        var c = [Float](repeating: 0, count: SileroVADModel.hidden)
        var context = [Float](repeating: 0, count: SileroVADModel.contextSize)

        /// A state for the start of a stream.
        public init() {}
    }

    /// Why weights could not be loaded.
    public enum LoadError: Error, Equatable, CustomStringConvertible {
        case fileNotFound(String)
        case invalidFormat(String)
        case missingTensor(String)
        case wrongShape(name: String, expected: [Int], found: [Int])

        public var description: String {
            switch self {
            case .fileNotFound(let path): return "No Silero weights at \(path); run scripts/setup."
            case .invalidFormat(let detail): return "The Silero weights file is invalid (\(detail)); run scripts/setup to export it again."
            case .missingTensor(let name): return "The Silero weights file lacks \(name); run scripts/setup to export it again."
            case .wrongShape(let name, let expected, let found):
                return "Silero tensor \(name) has shape \(found), expected \(expected); run scripts/setup to export it again."
            }
        }
    }

    struct Conv: Sendable {
        let weight: [Float]  // [out][in][3]
        let bias: [Float]
        let inputs: Int
        let outputs: Int
        let stride: Int
    }

    let basis: [Float]  // [258][256]
    let convolutions: [Conv]
    let weightIH: [Float]  // [512][128], gates i, f, g, o
    let weightHH: [Float]
    let bias: [Float]  // bias_ih + bias_hh
    let headWeight: [Float]
    let headBias: Float

    /// Loads weights written by `scripts/export_silero.py`.
    public init(contentsOf url: URL) throws(LoadError) {
        guard let data = try? Data(contentsOf: url) else { throw .fileNotFound(url.path) }
        let tensors = try Self.parse([UInt8](data))
        func tensor(_ name: String, _ shape: [Int]) throws(LoadError) -> [Float] {
            guard let (found, values) = tensors[name] else { throw .missingTensor(name) }
            guard found == shape else { throw .wrongShape(name: name, expected: shape, found: found) }
            return values
        }
        basis = try tensor("stft.basis", [2 * Self.bins, 1, Self.window])
        let layout = [(Self.bins, 128, 1), (128, 64, 2), (64, 64, 2), (64, Self.hidden, 1)]
        var convolutions: [Conv] = []
        for (index, (inputs, outputs, stride)) in layout.enumerated() {
            convolutions.append(Conv(
                weight: try tensor("encoder.\(index).weight", [outputs, inputs, 3]),
                bias: try tensor("encoder.\(index).bias", [outputs]),
                inputs: inputs, outputs: outputs, stride: stride))
        }
        self.convolutions = convolutions
        weightIH = try tensor("lstm.weight_ih", [4 * Self.hidden, Self.hidden])
        weightHH = try tensor("lstm.weight_hh", [4 * Self.hidden, Self.hidden])
        let biasIH = try tensor("lstm.bias_ih", [4 * Self.hidden])
        let biasHH = try tensor("lstm.bias_hh", [4 * Self.hidden])
        bias = zip(biasIH, biasHH).map { $0 + $1 }
        headWeight = try tensor("head.weight", [1, Self.hidden, 1])
        headBias = try tensor("head.bias", [1])[0]
    }

    /// Parses the exporter's format: "PSVW", u32 version 1, u32 count, then named tensors.
    static func parse(_ bytes: [UInt8]) throws(LoadError) -> [String: ([Int], [Float])] {
        var offset = 0
        func take(_ count: Int) throws(LoadError) -> ArraySlice<UInt8> {
            guard offset + count <= bytes.count else { throw .invalidFormat("truncated at byte \(offset)") }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
        func u32() throws(LoadError) -> Int {
            let b = try take(4)
            return b.reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        guard try take(4).elementsEqual(Array("PSVW".utf8)) else { throw .invalidFormat("bad magic") }
        guard try u32() == 1 else { throw .invalidFormat("unknown format version") }
        var tensors: [String: ([Int], [Float])] = [:]
        for _ in 0..<(try u32()) {
            let nameBytes = try take(2)
            let nameLength = Int(nameBytes[nameBytes.startIndex]) | Int(nameBytes[nameBytes.startIndex + 1]) << 8
            let name = String(decoding: try take(nameLength), as: UTF8.self)
            let rank = Int(try take(1).first ?? 0)
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(try u32()) }
            let count = shape.reduce(1, *)
            let raw = try take(4 * count)
            let values = raw.withUnsafeBytes { pointer in
                (0..<count).map { Float(bitPattern: UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
            }
            tensors[name] = (shape, values)
        }
        return tensors
    }

    /// The speech probability of `chunk` (exactly 512 samples at 16 kHz, in [-1, 1]); updates
    /// `state` for the next chunk of the same stream.
    public func probability(of chunk: [Float], state: inout State) -> Float {
        precondition(chunk.count == Self.chunkSize, "Silero VAD takes chunks of 512 samples")
        // Context + chunk, reflect-padded on the right by 64 (the edge sample is not repeated).
        var input = state.context + chunk
        let length = input.count
        for index in 0..<Self.contextSize { input.append(input[length - 2 - index]) }
        state.context = Array(input[(length - Self.contextSize)..<length])

        var features = spectrum(input)
        var steps = Self.frames
        for convolution in convolutions {
            (features, steps) = convolve(features, steps: steps, convolution)
        }
        lstmStep(features, state: &state)  // `steps` is 1 here: one vector of 128
        var logit = headBias
        for index in 0..<Self.hidden { logit += headWeight[index] * max(0, state.h[index]) }
        return 1 / (1 + expf(-logit))
    }

    /// STFT magnitudes as [bin][frame].
    private func spectrum(_ input: [Float]) -> [Float] {
        var magnitudes = [Float](repeating: 0, count: Self.bins * Self.frames)
        basis.withUnsafeBufferPointer { basis in
            input.withUnsafeBufferPointer { input in
                for frame in 0..<Self.frames {
                    let start = frame * Self.hop
                    for bin in 0..<Self.bins {
                        var real: Float = 0, imaginary: Float = 0
                        let realRow = bin * Self.window, imaginaryRow = (bin + Self.bins) * Self.window
                        for tap in 0..<Self.window {
                            let sample = input[start + tap]
                            real += basis[realRow + tap] * sample
                            imaginary += basis[imaginaryRow + tap] * sample
                        }
                        magnitudes[bin * Self.frames + frame] = (real * real + imaginary * imaginary).squareRoot()
                    }
                }
            }
        }
        return magnitudes
    }

    /// A kernel-3, padding-1 convolution with ReLU over [channel][step] features.
    private func convolve(_ input: [Float], steps: Int, _ conv: Conv) -> ([Float], Int) {
        let outSteps = (steps - 1) / conv.stride + 1
        var output = [Float](repeating: 0, count: conv.outputs * outSteps)
        conv.weight.withUnsafeBufferPointer { weight in
            input.withUnsafeBufferPointer { input in
                for out in 0..<conv.outputs {
                    for step in 0..<outSteps {
                        var sum = conv.bias[out]
                        let centre = step * conv.stride
                        for channel in 0..<conv.inputs {
                            let w = (out * conv.inputs + channel) * 3
                            let row = channel * steps
                            for k in 0..<3 {
                                let position = centre + k - 1
                                if position >= 0, position < steps { sum += weight[w + k] * input[row + position] }
                            }
                        }
                        output[out * outSteps + step] = max(0, sum)
                    }
                }
            }
        }
        return (output, outSteps)
    }

    /// One LSTM cell step (PyTorch gate order i, f, g, o).
    private func lstmStep(_ x: [Float], state: inout State) {
        let hidden = Self.hidden
        var gates = bias
        weightIH.withUnsafeBufferPointer { wi in
            weightHH.withUnsafeBufferPointer { wh in
                for row in 0..<(4 * hidden) {
                    var sum: Float = 0
                    let base = row * hidden
                    for column in 0..<hidden {
                        sum += wi[base + column] * x[column] + wh[base + column] * state.h[column]
                    }
                    gates[row] += sum
                }
            }
        }
        func sigmoid(_ v: Float) -> Float { 1 / (1 + expf(-v)) }
        for unit in 0..<hidden {
            let input = sigmoid(gates[unit])
            let forget = sigmoid(gates[hidden + unit])
            let candidate = tanhf(gates[2 * hidden + unit])
            let output = sigmoid(gates[3 * hidden + unit])
            state.c[unit] = forget * state.c[unit] + input * candidate
            state.h[unit] = output * tanhf(state.c[unit])
        }
    }
}
