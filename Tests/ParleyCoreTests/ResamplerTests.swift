import Foundation
import Testing
@testable import ParleyCore

@Suite("Resampling")
struct ResamplerTests {
    /// The amplitude of `frequency` in `samples` (a single-bin DFT).
    func amplitude(of frequency: Double, in samples: [Float], rate: Int) -> Double {
        var re = 0.0, im = 0.0
        for (index, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(index) / Double(rate)
            re += Double(sample) * cos(phase)
            im += Double(sample) * sin(phase)
        }
        return 2 * sqrt(re * re + im * im) / Double(samples.count)
    }

    func tone(_ frequency: Double, rate: Int, seconds: Double, amplitude: Float = 0.5) -> AudioBuffer {
        let count = Int(Double(rate) * seconds)
        return AudioBuffer(samples: (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }, sampleRate: rate)
    }

    @Test("length scales with the rate", arguments: [(22_050, 16_000), (48_000, 16_000), (8_000, 16_000), (44_100, 22_050)])
    func length(from: Int, to: Int) {
        let out = tone(440, rate: from, seconds: 0.5).resampled(to: to)
        #expect(out.sampleRate == to)
        #expect(abs(out.samples.count - to / 2) <= 1)
    }

    @Test("a tone in the passband keeps its frequency and level", arguments: [(22_050, 16_000), (16_000, 48_000)])
    func passband(from: Int, to: Int) {
        let out = tone(1000, rate: from, seconds: 0.5).resampled(to: to)
        let middle = Array(out.samples[out.samples.count / 4..<3 * out.samples.count / 4])
        #expect(abs(amplitude(of: 1000, in: middle, rate: to) - 0.5) < 0.02)
    }

    @Test("a tone above the new Nyquist frequency is removed, not aliased")
    func antiAliasing() {
        // 10 kHz at 44.1 kHz would alias to 6 kHz at 16 kHz without filtering.
        let out = tone(10_000, rate: 44_100, seconds: 0.5).resampled(to: 16_000)
        let middle = Array(out.samples[out.samples.count / 4..<3 * out.samples.count / 4])
        #expect(amplitude(of: 6_000, in: middle, rate: 16_000) < 0.01)
    }

    @Test("same rate is the identity; empty stays empty")
    func trivial() {
        let buffer = tone(300, rate: 16_000, seconds: 0.1)
        #expect(buffer.resampled(to: 16_000) == buffer)
        #expect(Resampler(from: 22_050, to: 16_000).process([]).isEmpty)
    }
}

@Suite("Streaming resampling")
struct StreamingResamplerTests {
    @Test(
        "pieces of any size give exactly the whole-buffer output",
        arguments: [(48_000, 16_000), (44_100, 16_000), (22_050, 16_000), (8_000, 16_000), (16_000, 16_000)])
    func matchesBatch(from: Int, to: Int) {
        var generator = SystemRandomNumberGenerator()
        let input = (0..<(from / 2 + 123)).map { index in
            Float(0.5 * sin(Double(index) * 0.07)) + Float.random(in: -0.1...0.1, using: &generator)
        }
        let whole = Resampler(from: from, to: to).process(input)
        var streaming = StreamingResampler(from: from, to: to)
        var output: [Float] = []
        var offset = 0
        while offset < input.count {
            let size = Int.random(in: 1...2_000, using: &generator)
            output += streaming.process(Array(input[offset..<min(input.count, offset + size)]))
            offset += size
        }
        output += streaming.finish()
        #expect(output.count == whole.count)
        #expect(output == whole)
    }
}
