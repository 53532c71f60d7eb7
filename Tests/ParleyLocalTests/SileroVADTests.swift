import Foundation
import ParleyCore
import Testing
@testable import ParleyLocal
@testable import ParleySilero

@Suite("Silero VAD in Swift")
struct SileroVADTests {
    struct Reference: Decodable {
        var sample_rate: Int
        var chunk: Int
        var probabilities: [Float]
    }

    let paths = TestEnvironment.paths

    @Test("matches onnxruntime's probabilities within 1e-3 on every chunk")
    func matchesReference() throws {
        let model = try SileroVADModel(contentsOf: TestEnvironment.require(paths.sileroWeights))
        let reference = try JSONDecoder().decode(
            Reference.self, from: Data(contentsOf: TestEnvironment.require(paths.testData.appendingPathComponent("silero_reference.json"))))
        let audio = try WAV.read(from: TestEnvironment.require(paths.testData.appendingPathComponent("vad_pauses.wav")))
        #expect(audio.sampleRate == 16_000)
        var state = SileroVADModel.State()
        var maxDifference: Float = 0
        var probabilities: [Float] = []
        for (index, start) in stride(from: 0, to: audio.samples.count, by: 512).enumerated() {
            var chunk = Array(audio.samples[start..<min(start + 512, audio.samples.count)])
            chunk += [Float](repeating: 0, count: 512 - chunk.count)
            let probability = model.probability(of: chunk, state: &state)
            probabilities.append(probability)
            maxDifference = max(maxDifference, abs(probability - reference.probabilities[index]))
        }
        #expect(probabilities.count == reference.probabilities.count)
        #expect(maxDifference < 1e-3, "max |swift - onnxruntime| = \(maxDifference)")
        // The reference itself must contain both speech and silence, or the comparison says little.
        #expect(reference.probabilities.contains { $0 > 0.9 } && reference.probabilities.contains { $0 < 0.1 })
    }

    @Test("the STFT by FFT gives the basis convolution's probabilities (within 1e-5) and the same decisions on every chunk")
    func spectrumByFFT() throws {
        let url = try TestEnvironment.require(paths.sileroWeights)
        let fast = try SileroVADModel(contentsOf: url)
        let convolution = try SileroVADModel(contentsOf: url, spectrumByFFT: false)
        #expect(fast.spectrum != nil, "the v6 basis is a periodic-Hann-windowed DFT")
        #expect(convolution.spectrum == nil)
        let audio = try WAV.read(from: TestEnvironment.require(paths.testData.appendingPathComponent("vad_pauses.wav")))
        var fastState = SileroVADModel.State(), convolutionState = SileroVADModel.State()
        var maxDifference: Float = 0
        var chunks = 0
        for start in stride(from: 0, to: audio.samples.count - 512, by: 512) {
            let chunk = Array(audio.samples[start..<(start + 512)])
            let a = fast.probability(of: chunk, state: &fastState)
            let b = convolution.probability(of: chunk, state: &convolutionState)
            maxDifference = max(maxDifference, abs(a - b))
            #expect((a > 0.5) == (b > 0.5))
            chunks += 1
        }
        #expect(chunks > 100)
        #expect(maxDifference < 1e-5, "max |fft - convolution| = \(maxDifference)")
    }

    @Test("a basis that is not the windowed DFT keeps the convolution")
    func otherBasis() {
        let spectrum = WindowedSpectrum()
        var basis = [Float](repeating: 0, count: 2 * 129 * 256)
        #expect(!spectrum.matches(basis[...]))
        for bin in 0..<129 {
            for n in 0..<256 {
                let angle = 2 * Double.pi * Double(bin * n % 256) / 256
                basis[bin * 256 + n] = spectrum.window[n] * Float(cos(angle))
                basis[(129 + bin) * 256 + n] = -spectrum.window[n] * Float(sin(angle))
            }
        }
        #expect(spectrum.matches(basis[...]))
        basis[5 * 256 + 7] += 0.01
        #expect(!spectrum.matches(basis[...]))
        #expect(!spectrum.matches(basis[0..<100]))
    }

    @Test("finds the two utterances of a file with a pause")
    func segments() throws {
        let detector = SileroVoiceActivityDetector(weightsPath: try TestEnvironment.require(paths.sileroWeights).path)
        let audio = try WAV.read(from: TestEnvironment.require(paths.testData.appendingPathComponent("vad_pauses.wav")))
        let segments = try detector.segments(in: audio, configuration: .init(endSilence: 0.8, padding: 0.1))
        #expect(segments.count == 2, "\(segments.map { ($0.startTime, $0.endTime) })")
        // The file: 0.4 s of silence, the first sentence, 1.5 s of silence, the second, 1 s of silence.
        #expect(abs((segments.first?.startTime ?? 0) - 0.4) < 0.2)
        if segments.count == 2 {
            let gap = segments[1].startTime - segments[0].endTime
            #expect(gap > 1.0 && gap < 1.8, "gap \(gap)")
            #expect(segments[1].endTime < audio.duration - 0.5)
        }
    }

    @Test("silence and steady noise are not speech")
    func silence() throws {
        let model = try SileroVADModel(contentsOf: TestEnvironment.require(paths.sileroWeights))
        var state = SileroVADModel.State()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<30 {
            let noise = (0..<512).map { _ in Float.random(in: -0.002...0.002, using: &generator) }
            #expect(model.probability(of: noise, state: &state) < 0.2)
        }
    }

    @Test("damaged weight files are typed errors that say to export the weights again")
    func badWeights() throws {
        let directory = FileManager.default.temporaryDirectory
        let missing = directory.appendingPathComponent("no-such-\(UUID()).weights")
        #expect(throws: SileroVADModel.LoadError.fileNotFound(missing.path)) { try SileroVADModel(contentsOf: missing) }
        let good = try Data(contentsOf: TestEnvironment.require(paths.sileroWeights))
        let truncated = directory.appendingPathComponent("truncated-\(UUID()).weights")
        try good.prefix(good.count / 2).write(to: truncated)
        defer { try? FileManager.default.removeItem(at: truncated) }
        do {
            _ = try SileroVADModel(contentsOf: truncated)
            Issue.record("a truncated file must not load")
        } catch {
            #expect(error.description.contains("export the Silero VAD v6 weights again"))
            #expect(!error.description.contains("scripts/"))
        }
    }
}
