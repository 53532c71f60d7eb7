import Foundation
import Testing
@testable import ParleyCore

@Suite("Energy voice activity detector")
struct EnergyVADTests {
    /// A voiced-like signal: a 150 Hz tone with harmonics, amplitude-modulated at 4 Hz.
    func voice(seconds: Double, rate: Int = 16_000) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { index in
            let t = Double(index) / Double(rate)
            let envelope = 0.6 + 0.4 * sin(2 * Double.pi * 4 * t)
            return Float(0.3 * envelope * (sin(2 * Double.pi * 150 * t) + 0.5 * sin(2 * Double.pi * 300 * t)))
        }
    }

    func noise(seconds: Double, level: Float, rate: Int = 16_000) -> [Float] {
        var generator = SystemRandomNumberGenerator()
        return (0..<Int(seconds * Double(rate))).map { _ in Float.random(in: -level...level, using: &generator) }
    }

    @Test("finds two utterances separated by a pause, in light noise")
    func twoUtterances() throws {
        let samples =
            noise(seconds: 0.5, level: 0.002) + voice(seconds: 1.0) + noise(seconds: 1.5, level: 0.002)
            + voice(seconds: 0.8) + noise(seconds: 0.5, level: 0.002)
        let audio = AudioBuffer(samples: samples, sampleRate: 16_000)
        let segments = try EnergyVoiceActivityDetector().segments(in: audio, configuration: .init(endSilence: 0.8, padding: 0))
        #expect(segments.count == 2)
        #expect(abs(segments[0].startTime - 0.5) < 0.05)
        #expect(abs(segments[0].endTime - 1.5) < 0.1)
        #expect(abs(segments[1].startTime - 3.0) < 0.05)
    }

    @Test("finds nothing in silence or steady noise")
    func nothing() throws {
        let detector = EnergyVoiceActivityDetector()
        #expect(try detector.segments(in: AudioBuffer(samples: [Float](repeating: 0, count: 32_000), sampleRate: 16_000)).isEmpty)
        #expect(try detector.segments(in: AudioBuffer(samples: noise(seconds: 3, level: 0.003), sampleRate: 16_000)).isEmpty)
    }

    @Test("works on audio at another sample rate, reporting positions at that rate")
    func otherRate() throws {
        let rate = 22_050
        let samples = [Float](repeating: 0, count: rate / 2) + voice(seconds: 1, rate: rate) + [Float](repeating: 0, count: rate)
        let segments = try EnergyVoiceActivityDetector().segments(in: AudioBuffer(samples: samples, sampleRate: rate), configuration: .init(padding: 0))
        #expect(segments.count == 1)
        #expect(segments.first?.sampleRate == rate)
        #expect(abs((segments.first?.startTime ?? 0) - 0.5) < 0.05)
    }

    @Test("level in dBFS")
    func level() {
        #expect(EnergyVoiceActivityDetector.level(of: [Float](repeating: 0, count: 512)) == -120)
        #expect(abs(EnergyVoiceActivityDetector.level(of: [Float](repeating: 0.1, count: 512)) - -20) < 0.01)
    }
}
