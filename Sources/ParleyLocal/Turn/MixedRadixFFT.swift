import Foundation

/// A complex FFT, fast for sizes whose prime factors are 2, 3 and 5 (Whisper's 400 = 4·4·5·5), by
/// Stockham's self-sorting scheme: each stage reads one buffer and writes the other in
/// order, so no bit reversal is needed. Twiddles are computed once, in double precision. Any
/// larger prime factor left is one stage of a plain DFT (correct, only slower).
struct MixedRadixFFT: Sendable {
    /// The transform's length.
    let size: Int
    /// The radix of each stage, in order.
    let radices: [Int]
    /// Each stage's twiddles: `ω_n^(p·k)` for p < n/r and k < r, at `p·r + k` (n: the length
    /// the stage splits).
    private let twiddles: [(re: [Double], im: [Double])]
    /// Each radix's roots of unity: `ω_r^j` for j < r.
    private let roots: [Int: (re: [Double], im: [Double])]

    /// A plan for `size` (at least 1) points.
    init(size: Int) {
        let size = max(1, size)
        var rest = size, radices: [Int] = []
        for radix in [4, 2, 3, 5] {
            while rest % radix == 0 {
                radices.append(radix)
                rest /= radix
            }
        }
        if rest > 1 { radices.append(rest) }
        self.size = size
        self.radices = radices
        var twiddles: [(re: [Double], im: [Double])] = []
        var length = size
        for radix in radices {
            let parts = length / radix
            var re = [Double](repeating: 0, count: parts * radix), im = re
            for p in 0..<parts {
                for k in 0..<radix {
                    let angle = -2 * Double.pi * Double(p * k) / Double(length)
                    re[p * radix + k] = cos(angle)
                    im[p * radix + k] = sin(angle)
                }
            }
            twiddles.append((re, im))
            length = parts
        }
        self.twiddles = twiddles
        var roots: [Int: (re: [Double], im: [Double])] = [:]
        for radix in Set(radices) {
            roots[radix] = (
                (0..<radix).map { cos(-2 * Double.pi * Double($0) / Double(radix)) },
                (0..<radix).map { sin(-2 * Double.pi * Double($0) / Double(radix)) }
            )
        }
        self.roots = roots
    }

    /// Transforms `re`/`im` (each `size` long) in place; `scratchRe`/`scratchIm` are work space
    /// of the same length.
    func transform(
        re: UnsafeMutablePointer<Double>, im: UnsafeMutablePointer<Double>,
        scratchRe: UnsafeMutablePointer<Double>, scratchIm: UnsafeMutablePointer<Double>
    ) {
        var (xRe, xIm, yRe, yIm) = (re, im, scratchRe, scratchIm)
        var length = size, stride = 1
        let largest = radices.max() ?? 1
        // Work space for one butterfly: its inputs, and the roots of unity of its radix by j·k.
        let aRe = UnsafeMutablePointer<Double>.allocate(capacity: largest), aIm = UnsafeMutablePointer<Double>.allocate(capacity: largest)
        let wRe = UnsafeMutablePointer<Double>.allocate(capacity: largest * largest)
        let wIm = UnsafeMutablePointer<Double>.allocate(capacity: largest * largest)
        defer { aRe.deallocate(); aIm.deallocate(); wRe.deallocate(); wIm.deallocate() }
        for (stage, radix) in radices.enumerated() {
            let parts = length / radix
            guard let (rootRe, rootIm) = roots[radix] else { continue }
            for k in 0..<radix {
                for j in 0..<radix {
                    wRe[k * radix + j] = rootRe[(j * k) % radix]
                    wIm[k * radix + j] = rootIm[(j * k) % radix]
                }
            }
            twiddles[stage].re.withUnsafeBufferPointer { twRe in
                twiddles[stage].im.withUnsafeBufferPointer { twIm in
                    for p in 0..<parts {
                        for q in 0..<stride {
                            var index = q + stride * p
                            for j in 0..<radix {
                                aRe[j] = xRe[index]
                                aIm[j] = xIm[index]
                                index += stride * parts
                            }
                            var out = q + stride * p * radix
                            for k in 0..<radix {
                                var sumRe = 0.0, sumIm = 0.0
                                let row = k * radix
                                for j in 0..<radix {
                                    sumRe += aRe[j] * wRe[row + j] - aIm[j] * wIm[row + j]
                                    sumIm += aRe[j] * wIm[row + j] + aIm[j] * wRe[row + j]
                                }
                                let w = p * radix + k
                                yRe[out] = sumRe * twRe[w] - sumIm * twIm[w]
                                yIm[out] = sumRe * twIm[w] + sumIm * twRe[w]
                                out += stride
                            }
                        }
                    }
                }
            }
            swap(&xRe, &yRe)
            swap(&xIm, &yIm)
            length = parts
            stride *= radix
        }
        // After an odd number of stages the result is in the scratch buffers.
        if xRe != re {
            re.update(from: xRe, count: size)
            im.update(from: xIm, count: size)
        }
    }
}
