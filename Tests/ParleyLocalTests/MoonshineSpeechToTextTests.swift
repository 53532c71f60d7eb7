import Foundation
import ParleyCore
import ParleyTestLanes
import ParleyTesting
import Testing
@testable import ParleyLocal

/// Moonshine base for real, on sherpa-onnx, against recorded human speech (the test data of
/// PyPI packages; scripts/ears/recordings.tsv). scripts/setup installs the model and the
/// recordings; a missing one fails these tests with a message saying so.
///
/// Small models mishear a word here and there, and which word can change with the CPU: the
/// tests hold word error rates to bounds, never to exact words. Measured here: 10–13% WER on
/// the 29 recordings (`Benchmarks/run --suite ears`).
@Suite("Moonshine on sherpa-onnx, on recorded speech", .serialized, .onDeviceEngines)
struct MoonshineSpeechToTextTests {
    static let files = MoonshineModelFiles(folder: TestEnvironment.paths.models, name: TestEnvironment.paths.moonshineModelName)
    static let stt = MoonshineSpeechToText(files: files, cache: TestEnvironment.paths.speechCache, threads: 2)

    func moonshine() throws -> MoonshineSpeechToText {
        for file in Self.files.all { _ = try TestEnvironment.require(file) }
        return Self.stt
    }

    func recordings() throws -> [RealRecording] {
        let folder = RealRecording.folder(testData: TestEnvironment.paths.testData)
        _ = try TestEnvironment.require(folder.appendingPathComponent("recordings.tsv"))
        return try #require(RealRecording.all(in: folder))
    }

    @Test("every recording gives words, with a word error rate under 20% over all of them and at most one word wrong in each read sentence")
    func recordedSpeech() async throws {
        let recordings = try recordings()
        #expect(recordings.count >= 20)
        let stt = try moonshine()
        var errors = 0, words = 0
        var misheard: [String] = []
        for recording in recordings {
            let heard = try await stt.transcribe(try WAV.read(from: recording.file), options: TranscriptionOptions()).text
            let said = RealRecording.words(recording.reference)
            let wrong = wordErrors(RealRecording.words(heard), said)
            errors += wrong
            words += said.count
            if wrong > 0 { misheard.append("\(recording.name): \(heard)") }
            // Untrimmed, the quiet before whispered and falsetto speech made Moonshine say nothing.
            #expect(!heard.isEmpty, "nothing heard in \(recording.name)")
            // The audiobook sentences and JFK's are read clearly.
            if recording.name.hasPrefix("austen-") || recording.name.hasPrefix("librispeech-") || recording.name == "jfk" {
                #expect(wrong <= 1, "\(recording.name): \(heard)")
            }
        }
        #expect(Double(errors) / Double(words) < 0.2, "\(errors) errors in \(words) words; misheard: \(misheard)")
    }

    @Test("audio longer than one piece is transcribed in pieces, and no words are lost at the cuts")
    func longAudio() async throws {
        let parts = try recordings().filter { $0.name.hasPrefix("austen-") || $0.name.hasPrefix("librispeech-") || $0.name == "jfk" }
        var audio = AudioBuffer(samples: [], sampleRate: 16_000)
        var reference: [String] = []
        for part in parts {
            audio.samples += try WAV.read(from: part.file).resampled(to: 16_000).samples
            audio.samples += [Float](repeating: 0, count: 8_000)
            reference += RealRecording.words(part.reference)
        }
        #expect(audio.duration > MoonshineSpeechToText.longestPiece)
        let heard = try await moonshine().transcribe(audio, options: TranscriptionOptions())
        let errors = wordErrors(RealRecording.words(heard.text), reference)
        #expect(Double(errors) / Double(reference.count) < 0.15, "heard: \(heard.text)")
        #expect(heard.provider == nil && heard.segments.count == 1)
    }

    @Test("empty, silent and near-silent audio give an empty transcript")
    func silence() async throws {
        let stt = try moonshine()
        for samples in [[], [Float](repeating: 0, count: 16_000), (0..<32_000).map { Float(($0 * 7_919) % 13 - 6) * 1e-6 }] {
            let transcript = try await stt.transcribe(AudioBuffer(samples: samples, sampleRate: 16_000), options: TranscriptionOptions())
            #expect(transcript.text.isEmpty)
            #expect(transcript.segments.isEmpty)
        }
    }

    @Test("audio at another rate is resampled: 44.1 kHz speech is heard like 16 kHz")
    func otherRate() async throws {
        let recording = try #require(try recordings().first { $0.name == "austen-0930" })
        let audio = try WAV.read(from: recording.file).resampled(to: 44_100)
        let heard = try await moonshine().transcribe(audio, options: TranscriptionOptions())
        #expect(wordErrors(RealRecording.words(heard.text), RealRecording.words(recording.reference)) <= 1, "heard: \(heard.text)")
    }

    @Test("a transcription cancelled while it waits for the compute lane never runs, and gives its turn back")
    func cancelled() async throws {
        let stt = try moonshine()
        try await stt.load()
        let recording = try #require(try recordings().first { $0.name == "austen-0930" })
        let audio = try WAV.read(from: recording.file)
        let waiting = try await TestEnvironment.cancelledWhileTheLaneIsBusy { try await stt.transcribe(audio, options: TranscriptionOptions()) }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        let heard = try await stt.transcribe(audio, options: TranscriptionOptions())
        #expect(wordErrors(RealRecording.words(heard.text), RealRecording.words(recording.reference)) <= 1, "heard: \(heard.text)")
    }

    @Test("a missing model: availability names the file and how to get it, and a transcription fails saying so")
    func missingModel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-moonshine-\(UUID().uuidString)", isDirectory: true)
        let stt = MoonshineSpeechToText(files: MoonshineModelFiles(folder: folder), cache: folder.appendingPathComponent("cache"))
        guard case .missingModel(let path, let hint) = await stt.availability() else {
            Issue.record("expected a missing model")
            return
        }
        #expect(path == folder.appendingPathComponent("moonshine-base-en-encoder.ort").path)
        #expect(hint.contains("parley models pull moonshine-base"))
        let speech = AudioBuffer(samples: (0..<16_000).map { sin(Float($0) * 0.05) * 0.3 }, sampleRate: 16_000)
        await #expect(throws: MoonshineError.modelNotFound(path: path)) {
            _ = try await stt.transcribe(speech, options: TranscriptionOptions())
        }
        #expect(stt.identity.description == "sherpa-onnx (moonshine-base-en)")
    }

    @Test("in a chain before whisper.cpp, a missing Moonshine model falls back to whisper.cpp with one warning")
    func fallback() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-moonshine-\(UUID().uuidString)", isDirectory: true)
        let missing = MoonshineSpeechToText(files: MoonshineModelFiles(folder: folder), cache: folder)
        let whisper = WhisperSpeechToText(modelPath: try TestEnvironment.require(TestEnvironment.paths.defaultWhisperModel).path, threads: 2)
        let logs = CapturedLogs()
        let chain = SpeechToTextChain(providers: [missing, whisper], health: ProviderHealth(clock: ContinuousClock()), logger: logs.logger())
        let recording = try #require(try recordings().first { $0.name == "austen-0930" })
        let transcript = try await chain.transcribe(try WAV.read(from: recording.file), options: TranscriptionOptions())
        #expect(transcript.provider?.name == "whisper.cpp")
        #expect(wordErrors(RealRecording.words(transcript.text), RealRecording.words(recording.reference)) <= 1)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("moonshine-base-en") == true && warnings.first?.contains("moonshine-base-en-encoder.ort") == true)
    }

    @Test("Moonshine's tokenizer becomes sherpa-onnx's tokens file: base64 of each token's bytes and its id")
    func tokens() throws {
        // Lengths below 128 take one byte; 200 takes two: 128 + 72 (its low seven bits), then 1 (× 128).
        let long = Data(repeating: 0x61, count: 200)
        let tokenizer = Data([3]) + Data("<s>".utf8) + Data([0]) + Data([200, 1]) + long + Data([6]) + Data("\u{2581}the".utf8)
        let tokens = try #require(MoonshineModelFiles.tokens(fromTokenizer: tokenizer))
        #expect(tokens == [Data("<s>".utf8), Data(), long, Data("\u{2581}the".utf8)])
        #expect(MoonshineModelFiles.tokensFile([Data("<s>".utf8), Data("\u{2581}the".utf8)]) == "PHM+ 0\n4paBdGhl 1\n")
        // A length running past the end is not a tokenizer.
        #expect(MoonshineModelFiles.tokens(fromTokenizer: Data([9, 0x61])) == nil)
        #expect(MoonshineModelFiles.tokens(fromTokenizer: Data()) == nil)
        // The real one: 32,000 tokens, the specials first, then bytes 0–255.
        let real = try #require(MoonshineModelFiles.tokens(fromTokenizer: Data(contentsOf: try TestEnvironment.require(Self.files.tokenizer))))
        #expect(real.count == 32_000)
        #expect(real[0...3] == [Data("<unk>".utf8), Data("<s>".utf8), Data("</s>".utf8), Data([0])])
    }

    @Test("the quiet around speech beyond half a second is left out; long audio is cut where it is quietest")
    func trimmingAndPieces() {
        let rate = 16_000
        var samples = [Float](repeating: 0.0005, count: 3 * rate)
        samples += (0..<rate).map { sin(Float($0) * 0.05) * 0.5 }
        samples += [Float](repeating: 0, count: 2 * rate)
        let range = MoonshineSpeechToText.speechRange(samples, rate: rate)
        #expect(range == (3 * rate - rate / 2)..<(4 * rate + rate / 2))
        #expect(MoonshineSpeechToText.speechRange([Float](repeating: 0.00001, count: rate), rate: rate) == nil)

        // 70 s of tone with a quiet tenth of a second at 25 s and at 50 s.
        var long = (0..<70 * rate).map { sin(Float($0) * 0.05) * 0.3 }
        for start in [25 * rate, 50 * rate] { for index in start..<start + rate / 10 { long[index] = 0 } }
        let pieces = MoonshineSpeechToText.pieces(of: 0..<long.count, in: long, rate: rate)
        #expect(pieces.count == 3)
        #expect(pieces.first?.lowerBound == 0 && pieces.last?.upperBound == long.count)
        #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(pieces.allSatisfy { Double($0.count) <= MoonshineSpeechToText.longestPiece * Double(rate) })
        #expect(abs(pieces[0].upperBound - (25 * rate + rate / 20)) <= rate / 10)
    }

    @Test("SentencePiece's word marks become spaces")
    func cleaning() {
        #expect(MoonshineSpeechToText.cleaned("\u{2581}Hello\u{2581}there.  ") == "Hello there.")
    }
}
