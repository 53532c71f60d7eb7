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
/// window) are computed once.
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
    private let fft: MixedRadixFFT

    /// Features of `seconds` of 16 kHz audio.
    init(seconds: Int) {
        sampleCount = seconds * Self.sampleRate
        window = (0..<Self.fftSize).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.fftSize)) }
        filters = Self.melFilters()
        fft = MixedRadixFFT(size: Self.fftSize)
    }

    /// The features of `samples` (``sampleCount`` of them; fewer are padded with zeros at the
    /// end, more are cut to the first ``sampleCount``), mel bin by mel bin: `melBins ×
    /// frameCount` values, row-major, as the model's `[80, frames]` input.
    func features(of samples: [Float]) -> [Float] {
        var x = [Double](repeating: 0, count: sampleCount)
        for index in 0..<min(samples.count, sampleCount) { x[index] = Double(samples[index]) }
        let mean = x.reduce(0, +) / Double(sampleCount)
        let variance = x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(sampleCount)
        let scale = 1 / (variance + 1e-7).squareRoot()
        for index in x.indices { x[index] = (x[index] - mean) * scale }

        let frames = frameCount, half = Self.fftSize / 2, bins = Self.spectrumBins
        var logMel = [Double](repeating: 0, count: Self.melBins * frames)
        var re = [Double](repeating: 0, count: Self.fftSize), im = re, scratchRe = re, scratchIm = re
        var power = [Double](repeating: 0, count: bins)
        var constantFrame: (value: Double, column: [Double])?
        var column = [Double](repeating: 0, count: Self.melBins)
        for frame in 0..<frames {
            let start = frame * Self.hop - half
            var low = Double.infinity, high = -Double.infinity
            for n in 0..<Self.fftSize {
                let value = x[Self.reflected(start + n, count: sampleCount)]
                re[n] = value
                low = min(low, value)
                high = max(high, value)
            }
            if low == high, let constantFrame, constantFrame.value == low {
                for mel in 0..<Self.melBins { logMel[mel * frames + frame] = constantFrame.column[mel] }
                continue
            }
            for n in 0..<Self.fftSize {
                re[n] *= window[n]
                im[n] = 0
            }
            re.withUnsafeMutableBufferPointer { re in
                im.withUnsafeMutableBufferPointer { im in
                    scratchRe.withUnsafeMutableBufferPointer { scratchRe in
                        scratchIm.withUnsafeMutableBufferPointer { scratchIm in
                            guard let re = re.baseAddress, let im = im.baseAddress,
                                  let scratchRe = scratchRe.baseAddress, let scratchIm = scratchIm.baseAddress else { return }
                            fft.transform(re: re, im: im, scratchRe: scratchRe, scratchIm: scratchIm)
                        }
                    }
                }
            }
            for bin in 0..<bins { power[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
            filters.withUnsafeBufferPointer { filters in
                for mel in 0..<Self.melBins {
                    var sum = 0.0
                    let row = mel * bins
                    for bin in 0..<bins { sum += filters[row + bin] * power[bin] }
                    column[mel] = log10(max(sum, 1e-10))
                }
            }
            for mel in 0..<Self.melBins { logMel[mel * frames + frame] = column[mel] }
            if low == high { constantFrame = (low, column) }
        }
        let floor = (logMel.max() ?? 0) - 8
        return logMel.map { Float((max($0, floor) + 4) / 4) }
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
