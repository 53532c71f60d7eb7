import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// espeak-ng and whisper.cpp, for real: text → speech → text.
@Suite("espeak-ng and whisper.cpp", .serialized, .onDeviceEngines)
struct SpeechRoundTripTests {
    static let stt = WhisperSpeechToText(modelPath: TestEnvironment.paths.defaultWhisperModel.path, threads: 2)
    let tts = EspeakTextToSpeech()

    func whisper() throws -> WhisperSpeechToText {
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultWhisperModel)
        return Self.stt
    }

    @Test("espeak-ng speaks a sentence per chunk, at its own rate")
    func synthesis() async throws {
        var chunks: [AudioBuffer] = []
        for try await chunk in tts.synthesize("Hello there. How are you today?", options: SpeechOptions()) { chunks.append(chunk) }
        #expect(chunks.count == 2)
        #expect(chunks.allSatisfy { $0.sampleRate == 22_050 && $0.duration > 0.3 && $0.peak > 0.05 })
    }

    @Test("a transcription asked to stop stops inside whisper.cpp; one cancelled while waiting for the compute lane gives its turn back")
    func cancelled() async throws {
        let stt = try whisper()
        try await stt.load()
        let speech = try await tts.synthesizeAll("What is the capital of France?").resampled(to: 16_000)
        let context = try WhisperContext(modelPath: TestEnvironment.paths.defaultWhisperModel.path)
        let abort = WhisperAbort()
        abort.request()
        #expect(throws: WhisperError.self) { try context.transcribe(speech.samples, threads: 2, prompt: nil, abort: abort) }
        #expect(try context.transcribe(speech.samples, threads: 2, prompt: nil, abort: WhisperAbort()).map(\.text).joined().contains("France"))

        // The lane is busy: the transcription waits for it, is cancelled, and never runs.
        let waiting = try await TestEnvironment.cancelledWhileTheLaneIsBusy { try await stt.transcribe(speech, options: TranscriptionOptions()) }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(try await stt.transcribe(speech, options: TranscriptionOptions()).text.contains("France"))
    }

    @Test("a faster rate gives shorter speech")
    func rate() async throws {
        let normal = try await tts.synthesizeAll("This sentence is spoken twice.", options: SpeechOptions(rate: 1))
        let fast = try await tts.synthesizeAll("This sentence is spoken twice.", options: SpeechOptions(rate: 2))
        #expect(fast.duration < normal.duration * 0.75)
    }

    @Test(
        "sentences round-trip through TTS and STT with the words that carry them intact",
        arguments: [
            // tiny.en on espeak-ng's robotic voice is the offline floor: these it hears, but for
            // small function words on some CPUs ("capital of France" → "capital on France"); others
            // it mishears ("the lazy dog" → "the lazy nog"); a better model is one option away.
            "What is the capital of France?",
            "What time is it in London?",
            "How is the weather today?",
            "Please remind me to call my mother tomorrow morning.",
        ])
    func roundTrip(sentence: String) async throws {
        let speech = try await tts.synthesizeAll(sentence)
        let transcript = try await whisper().transcribe(speech, options: TranscriptionOptions())
        #expect(TestEnvironment.contentWords(transcript.text) == TestEnvironment.contentWords(sentence), "heard: \(transcript.text)")
        // At most one small word differs.
        #expect(TestEnvironment.wordEdits(transcript.text, sentence) <= 1, "heard: \(transcript.text)")
    }

    @Test("streaming transcription yields partials and then the final transcript")
    func streaming() async throws {
        let speech = try await tts.synthesizeAll("Please remind me to call my mother tomorrow morning.")
        // Feed 250 ms frames, as a microphone would.
        let frameLength = speech.sampleRate / 4
        let frames = stride(from: 0, to: speech.samples.count, by: frameLength).map { speech.slice($0..<($0 + frameLength)) }
        var partials = 0
        var final: Transcript?
        for try await update in try whisper().transcribe(stream: frames.async, options: TranscriptionOptions()) {
            switch update {
            case .partial: partials += 1
            case .final(let transcript): final = transcript
            }
        }
        #expect(partials >= 1)
        #expect(TestEnvironment.words(final?.text ?? "").suffix(3) == ["call", "my", "mother", "tomorrow", "morning"].suffix(3))
    }

    @Test("the converted model transcribes the reference clip as the original CTranslate2 model does")
    func converterMatchesReference() async throws {
        let clip = try TestEnvironment.require(TestEnvironment.paths.testData.appendingPathComponent("whisper_reference.wav"))
        let reference = try TestEnvironment.require(TestEnvironment.paths.testData.appendingPathComponent("whisper_reference.txt"))
        let expected = try String(contentsOf: reference, encoding: .utf8)
        let transcript = try await whisper().transcribe(WAV.read(from: clip), options: TranscriptionOptions())
        #expect(
            TestEnvironment.words(transcript.text) == TestEnvironment.words(expected),
            "whisper.cpp: \(transcript.text) | CTranslate2: \(expected)")
    }

    @Test("a missing Whisper model is reported by availability and by a typed error")
    func missingModel() async throws {
        let missing = WhisperSpeechToText(modelPath: "/nonexistent/ggml.bin")
        #expect(await !missing.availability().isReady)
        await #expect(throws: WhisperError.modelNotFound(path: "/nonexistent/ggml.bin")) {
            _ = try await missing.transcribe(AudioBuffer(samples: [0.1, 0.2], sampleRate: 16_000), options: TranscriptionOptions())
        }
    }

    @Test("a missing espeak-ng program is reported as unsupported")
    func missingProgram() async {
        let absent = EspeakTextToSpeech(executable: "/nonexistent/espeak-ng")
        #expect(await !absent.availability().isReady)
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
