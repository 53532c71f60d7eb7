import Foundation

/// Magnitudes of a 256-point periodic-Hann-windowed DFT by a radix-2 FFT: what Silero's STFT
/// layer computes as a convolution with its 258 × 256 basis (129 cosine rows, 129 sine rows),
/// in about a tenth of the arithmetic (some 6,000 operations a frame instead of 66,000).
///
/// ``SileroVADModel`` uses it only when the basis in the weights file is that windowed DFT
/// (``matches(_:)``); another basis keeps the convolution, so decisions never change.
struct WindowedSpectrum: Sendable {
    static let size = 256
    static let bins = size / 2 + 1

    /// The periodic Hann window.
    let window: [Float]
    /// cos(2πm/256) and sin(2πm/256) for m < 128.
    let cosines: [Float]
    let sines: [Float]
    /// Where each input sample goes before the butterflies (bit-reversed index).
    let order: [Int]

    init() {
        let size = Self.size
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        cosines = (0..<(size / 2)).map { Float(cos(2 * Double.pi * Double($0) / Double(size))) }
        sines = (0..<(size / 2)).map { Float(sin(2 * Double.pi * Double($0) / Double(size))) }
        let bits = size.trailingZeroBitCount
        order = (0..<size).map { index in
            var reversed = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
            return reversed
        }
    }

    /// Whether `basis` ([258][256], the weights' `stft.basis`) is this windowed DFT: row k is
    /// window·cos(2πkn/256), row 129 + k is ±window·sin(2πkn/256) (the sign does not change a
    /// magnitude).
    func matches(_ basis: ArraySlice<Float>) -> Bool {
        let size = Self.size, bins = Self.bins
        guard basis.count == 2 * bins * size else { return false }
        let start = basis.startIndex
        var cosineError: Float = 0, sineError: Float = 0, flippedError: Float = 0
        for bin in 0..<bins {
            for n in 0..<size {
                let angle = 2 * Double.pi * Double(bin * n % size) / Double(size)
                let real = window[n] * Float(cos(angle)), imaginary = window[n] * Float(sin(angle))
                cosineError = max(cosineError, abs(basis[start + bin * size + n] - real))
                let sine = basis[start + (bins + bin) * size + n]
                sineError = max(sineError, abs(sine - imaginary))
                flippedError = max(flippedError, abs(sine + imaginary))
            }
        }
        return cosineError < 1e-5 && min(sineError, flippedError) < 1e-5
    }

    /// The 129 magnitudes of the windowed `samples` (256 of them), written `stride` apart from
    /// `output`; `scratch` holds 512 floats. Loops over raw pointers, like the rest of the
    /// network, so that an unoptimized build is fast too.
    func magnitudes(
        of samples: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, stride: Int,
        scratch: UnsafeMutablePointer<Float>
    ) {
        window.withUnsafeBufferPointer { window in
            cosines.withUnsafeBufferPointer { cosines in
                sines.withUnsafeBufferPointer { sines in
                    order.withUnsafeBufferPointer { order in
                        guard let window = window.baseAddress, let cosines = cosines.baseAddress,
                            let sines = sines.baseAddress, let order = order.baseAddress
                        else { return }
                        Self.transform(samples, window, cosines, sines, order, output, stride, scratch)
                    }
                }
            }
        }
    }

    private static func transform(
        _ samples: UnsafePointer<Float>, _ window: UnsafePointer<Float>, _ cosines: UnsafePointer<Float>,
        _ sines: UnsafePointer<Float>, _ order: UnsafePointer<Int>, _ output: UnsafeMutablePointer<Float>,
        _ stride: Int, _ scratch: UnsafeMutablePointer<Float>
    ) {
        let size = Self.size
        let real = scratch, imaginary = scratch + size
        var index = 0
        while index < size {
            real[order[index]] = samples[index] * window[index]
            index += 1
        }
        imaginary.update(repeating: 0, count: size)
        var span = 2
        while span <= size {
            let half = span / 2, step = size / span
            var start = 0
            while start < size {
                var offset = 0
                while offset < half {
                    // e^(-2πi·offset/span)
                    let wr = cosines[offset * step], wi = -sines[offset * step]
                    let a = start + offset, b = a + half
                    let tr = wr * real[b] - wi * imaginary[b]
                    let ti = wr * imaginary[b] + wi * real[b]
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                    offset += 1
                }
                start += span
            }
            span *= 2
        }
        var bin = 0
        while bin < bins {
            output[bin * stride] = (real[bin] * real[bin] + imaginary[bin] * imaginary[bin]).squareRoot()
            bin += 1
        }
    }
}
