import Foundation

/// Whisper's log-mel spectrogram, as Smart Turn's encoder was trained on it: 80 mel bins of
/// the power spectrum of 25 ms frames every 10 ms at 16 kHz, in log10, floored 8 below the
/// loudest value, then mapped by (x + 4) / 4.
///
/// The waveform is first scaled to zero mean and unit variance (the Hugging Face feature
/// extractor's `do_normalize`, which Smart Turn's own inference applies), reflected at both
/// ends by half a frame, and windowed with a periodic Hann window; the last frame (which
/// only the reflection reaches) is left out, so `seconds` give `100 · seconds` frames.
/// Frames that are one constant value throughout (the zeros that pad a short utterance to the
/// window) are computed once: a short question's features cost a fraction of a long one's.
struct WhisperLogMel: Sendable {
    static let sampleRate = 16_000
    static let fftSize = 400
    static let hop = 160
    static let melBins = 80
    static let spectrumBins = fftSize / 2 + 1

    /// The samples the features cover.
    let sampleCount: Int
    /// The frames they give: `sampleCount / hop`.
    var frameCount: Int { sampleCount / Self.hop }
    private let window: [Double]
    /// The filter bank, mel bin by mel bin: `spectrumBins` weights each.
    let filters: [Double]
    /// Each mel bin's nonzero weights: the first spectrum bin they apply to, and the weights.
    private let bands: [(first: Int, weights: [Double])]
    private let fft: MixedRadixFFT

    /// Features of `seconds` of 16 kHz audio.
    init(seconds: Int) {
        sampleCount = seconds * Self.sampleRate
        window = (0..<Self.fftSize).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.fftSize)) }
        let filters = Self.melFilters()
        self.filters = filters
        bands = (0..<Self.melBins).map { mel in
            let row = Array(filters[(mel * Self.spectrumBins)..<((mel + 1) * Self.spectrumBins)])
            guard let first = row.firstIndex(where: { $0 > 0 }), let last = row.lastIndex(where: { $0 > 0 }) else { return (0, []) }
            return (first, Array(row[first...last]))
        }
        fft = MixedRadixFFT(size: Self.fftSize)
    }

    /// The features of `samples` (``sampleCount`` of them; fewer are padded with zeros at the
    /// end, more are cut to the first ``sampleCount``), mel bin by mel bin: `melBins ×
    /// frameCount` values, row-major, as the model's `[80, frames]` input.
    func features(of samples: [Float]) -> [Float] {
        var x = [Double](repeating: 0, count: sampleCount)
        var mean = 0.0
        for index in 0..<min(samples.count, sampleCount) {
            x[index] = Double(samples[index])
            mean += x[index]
        }
        mean /= Double(sampleCount)
        var variance = 0.0
        for index in 0..<sampleCount { variance += (x[index] - mean) * (x[index] - mean) }
        variance /= Double(sampleCount)
        let scale = 1 / (variance + 1e-7).squareRoot()
        for index in 0..<sampleCount { x[index] = (x[index] - mean) * scale }

        // The zeros that pad a short utterance, all one value now: the frames within them are alike.
        var leading = 1
        while leading < sampleCount, x[leading] == x[0] { leading += 1 }

        let frames = frameCount
        var logMel = [Double](repeating: 0, count: Self.melBins * frames)
        var work = [Double](repeating: 0, count: 4 * Self.fftSize + Self.spectrumBins + Self.melBins)
        var constantFrame: (value: Double, column: [Double])?
        x.withUnsafeBufferPointer { x in
            window.withUnsafeBufferPointer { window in
                work.withUnsafeMutableBufferPointer { work in
                    logMel.withUnsafeMutableBufferPointer { logMel in
                        guard let base = work.baseAddress, let x = x.baseAddress, let window = window.baseAddress,
                            let logMel = logMel.baseAddress
                        else { return }
                        let n = Self.fftSize
                        let (re, im, scratchRe, scratchIm) = (base, base + n, base + 2 * n, base + 3 * n)
                        let power = base + 4 * n, column = power + Self.spectrumBins
                        for frame in 0..<frames {
                            let start = frame * Self.hop - n / 2
                            if start + n <= leading, let constantFrame {
                                for mel in 0..<Self.melBins { logMel[mel * frames + frame] = constantFrame.column[mel] }
                                continue
                            }
                            var low = Double.infinity, high = -Double.infinity
                            for index in 0..<n {
                                let value = x[Self.reflected(start + index, count: sampleCount)]
                                re[index] = value * window[index]
                                im[index] = 0
                                low = min(low, value)
                                high = max(high, value)
                            }
                            if low == high, let constantFrame, constantFrame.value == low {
                                for mel in 0..<Self.melBins { logMel[mel * frames + frame] = constantFrame.column[mel] }
                                continue
                            }
                            fft.transform(re: re, im: im, scratchRe: scratchRe, scratchIm: scratchIm)
                            for bin in 0..<Self.spectrumBins { power[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                            for mel in 0..<Self.melBins {
                                let band = bands[mel]
                                var sum = 0.0
                                for (offset, weight) in band.weights.enumerated() { sum += weight * power[band.first + offset] }
                                column[mel] = log10(max(sum, 1e-10))
                                logMel[mel * frames + frame] = column[mel]
                            }
                            if low == high { constantFrame = (low, Array(UnsafeBufferPointer(start: column, count: Self.melBins))) }
                        }
                    }
                }
            }
        }
        var top = -Double.infinity
        for value in logMel { top = max(top, value) }
        let floor = top - 8
        var result = [Float](repeating: 0, count: logMel.count)
        for index in 0..<logMel.count { result[index] = Float((max(logMel[index], floor) + 4) / 4) }
        return result
    }

    /// Index `index` of a signal of `count` samples reflected at both ends (numpy's "reflect":
    /// the edge sample is not repeated).
    static func reflected(_ index: Int, count: Int) -> Int {
        var index = index
        if index < 0 { index = -index }
        if index >= count { index = 2 * (count - 1) - index }
        return min(max(index, 0), count - 1)
    }

    /// Slaney-style mel filters (librosa's default, as Whisper uses them): 80 triangles
    /// evenly spaced on the Slaney mel scale from 0 to 8 kHz over the 201 FFT bins, each
    /// scaled by 2 / its width in Hz so that it has unit area.
    static func melFilters() -> [Double] {
        func mel(_ hz: Double) -> Double {
            hz < 1000 ? 3 * hz / 200 : 15 + log(hz / 1000) * 27 / log(6.4)
        }
        func hz(_ mel: Double) -> Double {
            mel < 15 ? 200 * mel / 3 : 1000 * exp((mel - 15) * log(6.4) / 27)
        }
        let nyquist = Double(sampleRate) / 2
        let top = mel(nyquist)
        let edges = (0..<(melBins + 2)).map { hz(top * Double($0) / Double(melBins + 1)) }
        let frequencies = (0..<spectrumBins).map { nyquist * Double($0) / Double(spectrumBins - 1) }
        var filters = [Double](repeating: 0, count: melBins * spectrumBins)
        for m in 0..<melBins {
            let (left, center, right) = (edges[m], edges[m + 1], edges[m + 2])
            let area = 2 / (right - left)
            for (bin, f) in frequencies.enumerated() {
                let rising = (f - left) / (center - left)
                let falling = (right - f) / (right - center)
                filters[m * spectrumBins + bin] = max(0, min(rising, falling)) * area
            }
        }
        return filters
    }
}
