import Foundation
import ParleyCore
import ParleyOnnx
import ParleyTestLanes
import ParleyTesting
import Testing
@testable import ParleyLocal

@Suite("Smart Turn v3.2 under ONNX Runtime", .onDeviceEngines)
struct SmartTurnModelTests {
    struct Reference: Decodable {
        struct Clip: Decodable {
            var name: String
            var seconds: Double
            var probability: Double
        }
        struct Features: Decodable {
            var clip: String
            var file: String
        }
        var onnxruntime: String
        var clips: [Clip]
        var features: Features
    }

    let paths = TestEnvironment.paths
    var folder: URL { paths.testData.appendingPathComponent("smart_turn", isDirectory: true) }
    var modelFile: URL { paths.models.appendingPathComponent(SmartTurnModel.fileName) }

    func reference() throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: TestEnvironment.require(folder.appendingPathComponent("reference.json"))))
    }

    /// numpy's features of the first clip, as the reference script wrote them (float32, little-endian).
    func numpyFeatures(_ reference: Reference) throws -> [Float] {
        let data = try Data(contentsOf: TestEnvironment.require(folder.appendingPathComponent(reference.features.file)))
        let bytes = [UInt8](data)
        var values: [Float] = []
        for offset in stride(from: 0, to: bytes.count - 3, by: 4) {
            var bits = UInt32(bytes[offset])
            bits |= UInt32(bytes[offset + 1]) << 8
            bits |= UInt32(bytes[offset + 2]) << 16
            bits |= UInt32(bytes[offset + 3]) << 24
            values.append(Float(bitPattern: bits))
        }
        return values
    }

    func clip(_ name: String) throws -> [Float] {
        let audio = try WAV.read(from: TestEnvironment.require(folder.appendingPathComponent(name)))
        #expect(audio.sampleRate == 16_000)
        return audio.samples
    }

    @Test("the Swift log-mel features match numpy's within 1e-3 on every one of the 64,000 values")
    func featuresMatchNumpy() throws {
        let reference = try reference()
        let values = WhisperLogMel(seconds: 8).features(of: SmartTurnModel.window(try clip(reference.features.clip), count: 128_000))
        #expect(values.count == 80 * 800)
        let numpy = try numpyFeatures(reference)
        #expect(numpy.count == values.count)
        let difference = zip(values, numpy).map { abs($0 - $1) }.max() ?? .infinity
        #expect(difference < 1e-3, "max |swift - numpy| = \(difference)")
    }

    @Test("a session reports the model's names and the library's version, and refuses inputs that do not fit")
    func session() throws {
        let session = try OnnxSession(contentsOf: TestEnvironment.require(modelFile))
        #expect(session.inputNames == ["input_features"])
        #expect(session.outputNames == ["logits"])
        #expect(session.runtimeVersion.split(separator: ".").count == 3)
        let zeros = OnnxTensor(shape: [1, 80, 800], values: [Float](repeating: 0, count: 64_000))
        let output = try session.run(["input_features": zeros])
        #expect(output["logits"]?.shape == [1, 1])
        #expect(output["logits"]?.values.count == 1)
        #expect(throws: OnnxError.self) { try session.run(["audio": zeros]) }
        do {
            _ = try session.run(["input_features": OnnxTensor(shape: [1, 80, 800], values: [0, 1])])
            Issue.record("a tensor with too few values ran")
        } catch {
            #expect(error.code == .input)
        }
        do {
            // A shape the model does not take: ONNX Runtime's own message comes back.
            _ = try session.run(["input_features": OnnxTensor(shape: [1, 40, 10], values: [Float](repeating: 0, count: 400))])
            Issue.record("a [1, 40, 10] input ran")
        } catch {
            #expect(error.code == .run)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a missing model file is a model error that names it")
    func missingModel() {
        do {
            _ = try OnnxSession(contentsOf: URL(fileURLWithPath: "/nonexistent/turn.onnx"))
            Issue.record("a session was made from nothing")
        } catch {
            #expect(error.code == .model)
            #expect(error.message.contains("/nonexistent/turn.onnx"))
        }
    }

    @Test(
        "given numpy's features, the session gives onnxruntime's probability in Python within 0.03 (the library here is a later ONNX Runtime than the wheel's)")
    func sameFeaturesSameProbability() throws {
        let reference = try reference()
        let session = try OnnxSession(contentsOf: TestEnvironment.require(modelFile))
        let output = try session.run(["input_features": OnnxTensor(shape: [1, 80, 800], values: numpyFeatures(reference))])
        let probability = try #require(output["logits"]?.values.first)
        let expected = try #require(reference.clips.first { $0.name == reference.features.clip }).probability
        // The two runtimes' int8 kernels differ by CPU: within 0.002 on Intel machines, 0.019 on
        // an AMD EPYC with AVX-512 (0.933 here against 0.952 in Python).
        #expect(abs(Double(probability) - expected) < 0.03, "\(probability) here, \(expected) in onnxruntime \(reference.onnxruntime)")
    }

    /// The int8 model is sensitive to its input: noise of 1e-4 on numpy's own features moves
    /// complete-timer's score between 0.59 and 0.85 (complete-capital's between 0.92 and 0.95),
    /// so the probabilities from the Swift features (within 1e-3 of numpy's) are compared within 0.15.
    @Test("the model's probabilities match onnxruntime's in Python within 0.15; whole questions score above 0.5, cut sentences below 0.1")
    func probabilities() async throws {
        let reference = try reference()
        let model = SmartTurnModel(file: try TestEnvironment.require(modelFile))
        #expect(reference.clips.count == 4)
        for clip in reference.clips {
            let probability = try await model.probability(of: try self.clip(clip.name))
            #expect(
                abs(probability - clip.probability) < 0.15, "\(clip.name): \(probability) here, \(clip.probability) in onnxruntime \(reference.onnxruntime)")
            if clip.name.hasPrefix("complete") {
                #expect(probability > SmartTurnModel.threshold, "\(clip.name): \(probability)")
            } else {
                #expect(probability < 0.1, "\(clip.name): \(probability)")
            }
        }
    }

    @Test("as an AudioTurnScorer it takes audio at any rate")
    func scorerResamples() async throws {
        let model = SmartTurnModel(file: try TestEnvironment.require(modelFile))
        let samples = try clip("complete-capital.wav")
        let at16k = try await model.completion(of: AudioBuffer(samples: samples, sampleRate: 16_000))
        let at24k = try await model.completion(of: AudioBuffer(samples: samples, sampleRate: 16_000).resampled(to: 24_000))
        #expect(at16k > 0.5 && at24k > 0.5)
        #expect(abs(at16k - at24k) < 0.1)
    }
}

@Suite("The audio turn model's features")
struct WhisperLogMelTests {
    @Test("the mixed-radix FFT equals the plain DFT", arguments: [400, 16, 25, 7, 1])
    func fftMatchesDFT(size: Int) {
        var generator = SystemRandomNumberGenerator()
        let signal = (0..<size).map { _ in Double.random(in: -1...1, using: &generator) }
        var re = signal, im = [Double](repeating: 0, count: size), scratchRe = re, scratchIm = im
        MixedRadixFFT(size: size).transform(re: &re, im: &im, scratchRe: &scratchRe, scratchIm: &scratchIm)
        var worst = 0.0
        for k in 0..<size {
            var sumRe = 0.0, sumIm = 0.0
            for n in 0..<size {
                let angle = -2 * Double.pi * Double(n * k) / Double(size)
                sumRe += signal[n] * cos(angle)
                sumIm += signal[n] * sin(angle)
            }
            worst = max(worst, abs(sumRe - re[k]), abs(sumIm - im[k]))
        }
        #expect(worst < 1e-9)
    }

    @Test("the window keeps the last 8 s, or left-pads shorter speech with zeros")
    func window() {
        #expect(SmartTurnModel.window([1, 2, 3], count: 5) == [0, 0, 1, 2, 3])
        #expect(SmartTurnModel.window([1, 2, 3, 4, 5, 6], count: 5) == [2, 3, 4, 5, 6])
    }

    @Test("each mel filter has unit area in Hz (Slaney normalisation) and the bank covers 0 to 8 kHz")
    func melFilters() {
        let filters = WhisperLogMel.melFilters()
        #expect(filters.count == 80 * 201)
        #expect(filters.allSatisfy { $0 >= 0 })
        let binHz = 8_000.0 / 200
        for mel in [0, 40, 79] {
            let area = filters[(mel * 201)..<((mel + 1) * 201)].reduce(0, +) * binHz
            #expect(abs(area - 1) < 0.1, "filter \(mel): area \(area)")
        }
    }
}

@Suite("The audio turn model missing")
struct MissingTurnModelTests {
    @Test("the engines give no audio turn scorer without the model file, and warn that the words alone judge")
    func warns() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-no-turn-model-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let logs = CapturedLogs()
        let engines = LocalEngines(paths: ParleyPaths(home: home), logger: logs.logger())
        #expect(engines.audioTurnScorer() == nil)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("the end of a turn is judged by the text score alone") == true)
        #expect(warnings.first?.contains("smart-turn-v3.2-cpu.onnx is missing") == true)
    }
}
