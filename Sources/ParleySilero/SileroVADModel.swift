import Foundation

/// Silero VAD v6 (16 kHz) computed in plain Swift.
///
/// The network, as in the official ONNX graph's 16 kHz branch: the 64 samples before the
/// chunk plus the 512-sample chunk, reflect-padded by 64 on the right (640 samples) → STFT as a
/// convolution (256-sample kernel, stride 128: 4 frames × 129 bins, magnitude) → four 1-D
/// convolutions with kernel 3 and padding 1, each followed by ReLU (129→128 stride 1, 128→64
/// stride 2, 64→64 stride 2, 64→128 stride 1) → an LSTM cell of 128 (state carried between
/// chunks) → ReLU → 1×1 convolution → sigmoid.
///
/// Every layer is a series of dot products of contiguous rows of one flat weight array with
/// contiguous inputs (the convolutions gather each output step's window first), in `while`
/// loops over moving pointers: no calls, generics, bounds checks, copies or index arithmetic
/// per element, so the network runs far faster than real time even in an unoptimized (debug)
/// build, where no compiler optimization helps. `parley-benchmarks silero` measures it.
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
    /// Context, chunk and right padding.
    static let signalLength = contextSize + chunkSize + contextSize

    /// The recurrent state of one audio stream. Start each stream with a fresh value.
    public struct State: Sendable, Equatable {
        /// h (128), then c (128), then the last 64 samples of the previous chunk.
        var values = [Float](repeating: 0, count: 2 * SileroVADModel.hidden + SileroVADModel.contextSize)

        /// A state for the start of a stream.
        public init() {}
    }

    /// What to do when the weights file is missing.
    static let missingWeightsHint = "export the Silero VAD v6 weights there or pass their path in the configuration"

    /// Why weights could not be loaded.
    public enum LoadError: Error, Equatable, CustomStringConvertible {
        case fileNotFound(String)
        case invalidFormat(String)
        case missingTensor(String)
        case wrongShape(name: String, expected: [Int], found: [Int])

        public var description: String {
            switch self {
            case .fileNotFound(let path): return "No Silero weights at \(path); \(SileroVADModel.missingWeightsHint)."
            case .invalidFormat(let detail): return "The Silero weights file is invalid (\(detail)); export the Silero VAD v6 weights again."
            case .missingTensor(let name): return "The Silero weights file lacks \(name); export the Silero VAD v6 weights again."
            case .wrongShape(let name, let expected, let found):
                return "Silero tensor \(name) has shape \(found), expected \(expected); export the Silero VAD v6 weights again."
            }
        }
    }

    /// One encoder convolution and where its tensors sit in ``parameters``.
    struct Convolution: Sendable {
        let inputs: Int
        let outputs: Int
        let stride: Int
        /// Steps of the input (and, padded by one zero on each side, of each input row).
        let steps: Int
        /// Offset of the weights, [outputs][inputs × 3]: one contiguous row per output.
        let weight: Int
        /// Offset of the biases, [outputs].
        let bias: Int
        var outputSteps: Int { (steps - 1) / stride + 1 }
    }

    /// Where each tensor sits in ``parameters``: the STFT basis [258][256] first, then the
    /// convolutions, the LSTM, the head.
    static let basisOffset = 0
    static let convolutions: [Convolution] = {
        var layers: [Convolution] = []
        var offset = basisOffset + 2 * bins * window
        var steps = frames
        for (inputs, outputs, stride) in [(bins, 128, 1), (128, 64, 2), (64, 64, 2), (64, hidden, 1)] {
            let layer = Convolution(
                inputs: inputs, outputs: outputs, stride: stride, steps: steps,
                weight: offset, bias: offset + outputs * inputs * 3)
            layers.append(layer)
            offset = layer.bias + outputs
            steps = layer.outputSteps
        }
        return layers
    }()
    /// [512][256]: row r is weight_ih's row r then weight_hh's row r (gates i, f, g, o), so
    /// each gate is one dot product with [x | h].
    static let lstmWeightOffset = convolutions[convolutions.count - 1].bias + hidden
    /// [512]: bias_ih + bias_hh.
    static let lstmBiasOffset = lstmWeightOffset + 4 * hidden * 2 * hidden
    static let headWeightOffset = lstmBiasOffset + 4 * hidden
    static let headBiasOffset = headWeightOffset + hidden
    static let parameterCount = headBiasOffset + 1

    /// Every weight, laid out as above.
    let parameters: [Float]
    /// The STFT by FFT, when the weights' basis is the windowed DFT it is (else the convolution).
    let spectrum: WindowedSpectrum?

    /// Loads weights written by `scripts/export_silero.py`.
    public init(contentsOf url: URL) throws(LoadError) {
        try self.init(contentsOf: url, spectrumByFFT: true)
    }

    /// Loads weights; with `spectrumByFFT` false the STFT is always the basis convolution (the
    /// tests and `parley-benchmarks silero` compare the two).
    public init(contentsOf url: URL, spectrumByFFT: Bool) throws(LoadError) {
        guard let data = try? Data(contentsOf: url) else { throw .fileNotFound(url.path) }
        let tensors = try Self.parse([UInt8](data))
        func tensor(_ name: String, _ shape: [Int]) throws(LoadError) -> [Float] {
            guard let (found, values) = tensors[name] else { throw .missingTensor(name) }
            guard found == shape else { throw .wrongShape(name: name, expected: shape, found: found) }
            return values
        }
        var parameters: [Float] = []
        parameters.reserveCapacity(Self.parameterCount)
        parameters += try tensor("stft.basis", [2 * Self.bins, 1, Self.window])
        for (index, layer) in Self.convolutions.enumerated() {
            parameters += try tensor("encoder.\(index).weight", [layer.outputs, layer.inputs, 3])
            parameters += try tensor("encoder.\(index).bias", [layer.outputs])
        }
        let weightIH = try tensor("lstm.weight_ih", [4 * Self.hidden, Self.hidden])
        let weightHH = try tensor("lstm.weight_hh", [4 * Self.hidden, Self.hidden])
        for row in 0..<(4 * Self.hidden) {
            parameters += weightIH[(row * Self.hidden)..<((row + 1) * Self.hidden)]
            parameters += weightHH[(row * Self.hidden)..<((row + 1) * Self.hidden)]
        }
        let biasIH = try tensor("lstm.bias_ih", [4 * Self.hidden])
        let biasHH = try tensor("lstm.bias_hh", [4 * Self.hidden])
        parameters += zip(biasIH, biasHH).map { $0 + $1 }
        parameters += try tensor("head.weight", [1, Self.hidden, 1])
        parameters += try tensor("head.bias", [1])
        precondition(parameters.count == Self.parameterCount, "the Silero layout does not add up")
        self.parameters = parameters
        let fft = WindowedSpectrum()
        spectrum = spectrumByFFT && fft.matches(parameters[Self.basisOffset..<(Self.basisOffset + 2 * Self.bins * Self.window)]) ? fft : nil
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
            let values = [Float](unsafeUninitializedCapacity: count) { values, initialized in
                raw.withUnsafeBytes { bytes in
                    var index = 0
                    while index < count {
                        let bits = bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)
                        values[index] = Float(bitPattern: UInt32(littleEndian: bits))
                        index += 1
                    }
                }
                initialized = count
            }
            tensors[name] = (shape, values)
        }
        return tensors
    }

    /// The speech probability of `chunk` (exactly 512 samples at 16 kHz, in [-1, 1]); updates
    /// `state` for the next chunk of the same stream.
    public func probability(of chunk: [Float], state: inout State) -> Float {
        precondition(chunk.count == Self.chunkSize, "Silero VAD takes chunks of 512 samples")
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Scratch.size)
        defer { scratch.deallocate() }
        return parameters.withUnsafeBufferPointer { parameters in
            chunk.withUnsafeBufferPointer { chunk in
                state.values.withUnsafeMutableBufferPointer { state in
                    guard let parameters = parameters.baseAddress, let chunk = chunk.baseAddress, let state = state.baseAddress else { return 0 }
                    return Self.forward(parameters, chunk, state, scratch, spectrum)
                }
            }
        }
    }

    /// Offsets of the working buffers in one allocation per chunk.
    enum Scratch {
        static let signal = 0
        /// Two buffers the layers write in turn, each [channel][steps + 2] with a zero at both
        /// ends of every row (the convolutions' padding); the first holds the spectrum, the
        /// largest of them (129 × 6; the first convolution writes 128 × 6).
        static let pingPong = signal + signalLength
        static let pingPongSize = bins * (frames + 2)
        /// One gathered input window per output step: [step][channel × 3] (the first
        /// convolution's 4 × 387 is the largest).
        static let columns = pingPong + 2 * pingPongSize
        static let columnsSize = bins * 3 * frames
        /// [x | h], the LSTM's input.
        static let xh = columns + columnsSize
        static let gates = xh + 2 * hidden
        /// The FFT's real and imaginary parts.
        static let fft = gates + 4 * hidden
        static let size = fft + 2 * WindowedSpectrum.size
    }

    /// The network on one chunk; `state` is [h | c | context].
    private static func forward(
        _ p: UnsafePointer<Float>, _ chunk: UnsafePointer<Float>,
        _ state: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>,
        _ spectrum: WindowedSpectrum?
    ) -> Float {
        let hidden = Self.hidden, bins = Self.bins, window = Self.window, frames = Self.frames
        let h = state, c = state + hidden, context = state + 2 * hidden

        // Context + chunk, reflect-padded on the right by 64 (the edge sample is not repeated);
        // the chunk's last 64 samples are the next chunk's context.
        let signal = scratch + Scratch.signal
        let contextSize = Self.contextSize, chunkSize = Self.chunkSize
        signal.update(from: context, count: contextSize)
        (signal + contextSize).update(from: chunk, count: chunkSize)
        let length = contextSize + chunkSize
        var index = 0
        while index < contextSize {
            signal[length + index] = signal[length - 2 - index]
            index += 1
        }
        context.update(from: signal + (length - contextSize), count: contextSize)

        // STFT magnitudes into the first buffer, as [bin][frame] rows padded by one zero each side.
        var source = scratch + Scratch.pingPong
        var target = source + Scratch.pingPongSize
        source.update(repeating: 0, count: 2 * Scratch.pingPongSize)
        let basis = p + Self.basisOffset
        var frame = 0
        if let spectrum {
            while frame < frames {
                spectrum.magnitudes(
                    of: signal + frame * Self.hop, into: source + 1 + frame, stride: frames + 2,
                    scratch: scratch + Scratch.fft)
                frame += 1
            }
        }
        while frame < frames {
            let samples = signal + frame * Self.hop
            var bin = 0
            while bin < bins {
                let real = dot(basis + bin * window, samples, window)
                let imaginary = dot(basis + (bin + bins) * window, samples, window)
                source[bin * (frames + 2) + 1 + frame] = (real * real + imaginary * imaginary).squareRoot()
                bin += 1
            }
            frame += 1
        }

        // The convolutions, each ReLU'd into the other buffer; the last one writes x.
        let xh = scratch + Scratch.xh
        let columns = scratch + Scratch.columns
        let layers = Self.convolutions
        var layerIndex = 0
        while layerIndex < layers.count {
            let layer = layers[layerIndex]
            let isLast = layerIndex == layers.count - 1
            let outputSteps = layer.outputSteps
            let span = layer.inputs * 3, rowLength = layer.steps + 2
            // Gather each output step's window (3 taps of every input row) into one column.
            var step = 0
            while step < outputSteps {
                let column = columns + step * span
                var row = source + step * layer.stride
                var tap = 0
                while tap < span {
                    column[tap] = row[0]
                    column[tap + 1] = row[1]
                    column[tap + 2] = row[2]
                    row += rowLength
                    tap += 3
                }
                step += 1
            }
            let output = isLast ? xh : target
            let outputRow = isLast ? 1 : outputSteps + 2, first = isLast ? 0 : 1
            if !isLast { output.update(repeating: 0, count: layer.outputs * outputRow) }
            var out = 0
            while out < layer.outputs {
                let weights = p + layer.weight + out * span
                let bias = p[layer.bias + out]
                step = 0
                while step < outputSteps {
                    let sum = bias + dot(weights, columns + step * span, span)
                    output[out * outputRow + first + step] = sum > 0 ? sum : 0
                    step += 1
                }
                out += 1
            }
            swap(&source, &target)
            layerIndex += 1
        }

        // One LSTM step (PyTorch gate order i, f, g, o), each gate a dot product with [x | h].
        (xh + hidden).update(from: h, count: hidden)
        let gates = scratch + Scratch.gates
        let lstmWeight = p + Self.lstmWeightOffset, lstmBias = p + Self.lstmBiasOffset
        var gate = 0
        while gate < 4 * hidden {
            gates[gate] = lstmBias[gate] + dot(lstmWeight + gate * 2 * hidden, xh, 2 * hidden)
            gate += 1
        }
        var unit = 0
        while unit < hidden {
            let input = sigmoid(gates[unit])
            let forget = sigmoid(gates[hidden + unit])
            let candidate = tanhf(gates[2 * hidden + unit])
            let output = sigmoid(gates[3 * hidden + unit])
            c[unit] = forget * c[unit] + input * candidate
            h[unit] = output * tanhf(c[unit])
            unit += 1
        }

        // ReLU, the 1×1 head, sigmoid.
        let headWeight = p + Self.headWeightOffset
        var logit = p[Self.headBiasOffset]
        unit = 0
        while unit < hidden {
            let value = h[unit]
            if value > 0 { logit += headWeight[unit] * value }
            unit += 1
        }
        return sigmoid(logit)
    }

    private static func sigmoid(_ value: Float) -> Float { 1 / (1 + expf(-value)) }

    /// The dot product of `count` floats.
    ///
    /// Optimized builds use four 4-lane vectors (about 1.4× the scalar loop's speed here);
    /// unoptimized (debug) builds, where SIMD types are function calls, use scalars: the
    /// pointers move (no index arithmetic, which would be overflow-checked), 32 products a loop
    /// turn into four running sums (fewer sums spill less; more turns cost more).
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        #if DEBUG
        scalarDot(a, b, count)
        #else
        vectorDot(a, b, count)
        #endif
    }

    private static func vectorDot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var s0 = SIMD4<Float>(), s1 = SIMD4<Float>(), s2 = SIMD4<Float>(), s3 = SIMD4<Float>()
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        let vectorEnd = (count & ~15) * MemoryLayout<Float>.stride
        var offset = 0
        while offset < vectorEnd {
            s0 += x.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self) * y.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
            s1 += x.loadUnaligned(fromByteOffset: offset + 16, as: SIMD4<Float>.self) * y.loadUnaligned(fromByteOffset: offset + 16, as: SIMD4<Float>.self)
            s2 += x.loadUnaligned(fromByteOffset: offset + 32, as: SIMD4<Float>.self) * y.loadUnaligned(fromByteOffset: offset + 32, as: SIMD4<Float>.self)
            s3 += x.loadUnaligned(fromByteOffset: offset + 48, as: SIMD4<Float>.self) * y.loadUnaligned(fromByteOffset: offset + 48, as: SIMD4<Float>.self)
            offset += 64
        }
        var sum = ((s0 + s1) + (s2 + s3)).sum()
        var index = count & ~15
        while index < count {
            sum += a[index] * b[index]
            index += 1
        }
        return sum
    }

    static func scalarDot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var a = a, b = b
        let unrolledEnd = a + (count & ~31), end = a + count
        while a < unrolledEnd {
            s0 += a[0] * b[0]; s1 += a[1] * b[1]; s2 += a[2] * b[2]; s3 += a[3] * b[3]
            s0 += a[4] * b[4]; s1 += a[5] * b[5]; s2 += a[6] * b[6]; s3 += a[7] * b[7]
            s0 += a[8] * b[8]; s1 += a[9] * b[9]; s2 += a[10] * b[10]; s3 += a[11] * b[11]
            s0 += a[12] * b[12]; s1 += a[13] * b[13]; s2 += a[14] * b[14]; s3 += a[15] * b[15]
            s0 += a[16] * b[16]; s1 += a[17] * b[17]; s2 += a[18] * b[18]; s3 += a[19] * b[19]
            s0 += a[20] * b[20]; s1 += a[21] * b[21]; s2 += a[22] * b[22]; s3 += a[23] * b[23]
            s0 += a[24] * b[24]; s1 += a[25] * b[25]; s2 += a[26] * b[26]; s3 += a[27] * b[27]
            s0 += a[28] * b[28]; s1 += a[29] * b[29]; s2 += a[30] * b[30]; s3 += a[31] * b[31]
            a += 32
            b += 32
        }
        while a < end {
            s0 += a.pointee * b.pointee
            a += 1
            b += 1
        }
        return (s0 + s1) + (s2 + s3)
    }
}
