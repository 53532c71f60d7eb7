import Foundation
import ParleyTesting
import Testing
@testable import ParleyCore

/// A transcriber that fails with `error` (or succeeds with `text`), for chain tests.
actor FlakyTranscriber: SpeechToTextProvider {
    nonisolated let identity: ProviderIdentity
    nonisolated let preferredSampleRate: Int
    var error: (any Error)?
    let text: String
    let reported: Availability
    private(set) var calls: [AudioBuffer] = []

    init(name: String, text: String = "", error: (any Error)? = nil, availability: Availability = .ready, rate: Int = 16_000) {
        identity = ProviderIdentity(name: name, isLocal: false)
        self.text = text
        self.error = error
        self.reported = availability
        self.preferredSampleRate = rate
    }

    func availability() async -> Availability { reported }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        calls.append(audio)
        if let error { throw error }
        return Transcript(text: text)
    }
}

/// A transcriber that is live (or not) and counts its live sessions and whole-buffer calls.
actor SessionCountingTranscriber: SpeechToTextProvider {
    nonisolated let identity: ProviderIdentity
    nonisolated let preferredSampleRate = 16_000
    nonisolated let transcribesLive: Bool
    let text: String
    private(set) var liveSessions = 0
    private(set) var wholeBufferCalls = 0

    init(name: String, live: Bool, text: String = "") {
        identity = ProviderIdentity(name: name, isLocal: false)
        transcribesLive = live
        self.text = text
    }

    nonisolated func availability() async -> Availability { .ready }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        wholeBufferCalls += 1
        return Transcript(text: text)
    }

    private func openedSession() { liveSessions += 1 }

    nonisolated func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        AsyncThrowingStream { continuation in
            let task = Task {
                await self.openedSession()
                for try await _ in frames {}
                continuation.yield(.final(Transcript(text: self.text)))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A synthesizer that yields one chunk of a sentence and then fails, or speaks it whole.
struct BrokenMidSentence: TextToSpeechProvider {
    let identity = ProviderIdentity(name: "cloud-tts", isLocal: false)
    func availability() async -> Availability { .ready }
    func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(AudioBuffer(samples: [0.9, 0.9], sampleRate: 16_000))
            continuation.finish(throwing: ServiceError(status: 503))
        }
    }
}

@Suite("STT, TTS and VAD fallback chains")
struct SpeechChainTests {
    let clock = ManualClock()
    let logs = CapturedLogs()
    let audio = AudioBuffer(samples: [Float](repeating: 0.1, count: 22_050), sampleRate: 22_050)

    @Test("STT: a failed transcription is replayed on the next provider, at that provider's rate")
    func sttFailover() async throws {
        let cloud = FlakyTranscriber(name: "deepgram", error: ServiceError(status: 500))
        let local = FlakyTranscriber(name: "whisper.cpp", text: "hello", rate: 16_000)
        let chain = SpeechToTextChain(providers: [cloud, local], health: ProviderHealth(clock: clock), logger: logs.logger())
        let transcript = try await chain.transcribe(audio, options: TranscriptionOptions())
        #expect(transcript.text == "hello")
        #expect(await local.calls.first?.sampleRate == 16_000)
        #expect(logs.messages(at: .warning) == ["[STT] deepgram failed: HTTP 500, falling back to whisper.cpp"])
    }

    @Test("STT: a provider without a key is skipped without a request")
    func sttSkip() async throws {
        let cloud = FlakyTranscriber(name: "assemblyai", availability: .missingKey(variable: "ASSEMBLYAI_API_KEY"))
        let local = FlakyTranscriber(name: "whisper.cpp", text: "hi")
        let chain = SpeechToTextChain(providers: [cloud, local], health: ProviderHealth(clock: clock), logger: logs.logger())
        _ = try await chain.transcribe(audio, options: TranscriptionOptions())
        #expect(await cloud.calls.isEmpty)
        #expect(logs.messages(at: .warning).first?.contains("set ASSEMBLYAI_API_KEY") == true)
    }

    @Test("STT: the chain is live only when the provider it would use now is live")
    func sttLiveMeansTheProviderInUse() async {
        let assembly = SessionCountingTranscriber(name: "assemblyai", live: false)
        let deepgram = SessionCountingTranscriber(name: "deepgram", live: true)
        let health = ProviderHealth(clock: clock)
        #expect(await SpeechToTextChain(providers: [assembly, deepgram], health: health, logger: logs.logger()).transcribesLive == false)
        #expect(await SpeechToTextChain(providers: [deepgram, assembly], health: health, logger: logs.logger()).transcribesLive)
        // With the first provider resting, the live one behind it serves.
        await health.recordFailure("assemblyai", kind: .configuration, reason: "bad key")
        #expect(await SpeechToTextChain(providers: [assembly, deepgram], health: health, logger: logs.logger()).transcribesLive)
        let keyless = FlakyTranscriber(name: "speechmatics", availability: .missingKey(variable: "SPEECHMATICS_API_KEY"))
        #expect(await SpeechToTextChain(providers: [keyless, deepgram], health: ProviderHealth(clock: clock), logger: logs.logger()).transcribesLive)
    }

    @Test("STT: a live session skips a provider whose circuit is open, as whole-buffer transcription does")
    func sttLiveSkipsOpenCircuit() async throws {
        let resting = SessionCountingTranscriber(name: "deepgram-eu", live: true, text: "from the resting one")
        let serving = SessionCountingTranscriber(name: "deepgram-us", live: true, text: "hello")
        let health = ProviderHealth(clock: clock)
        await health.recordFailure("deepgram-eu", kind: .configuration, reason: "HTTP 401")
        let chain = SpeechToTextChain(providers: [resting, serving], health: health, logger: logs.logger())
        let frames = AsyncStream<AudioBuffer> { continuation in
            for _ in 0..<3 { continuation.yield(AudioBuffer(samples: [Float](repeating: 0.1, count: 1_600), sampleRate: 16_000)) }
            continuation.finish()
        }
        var final: Transcript?
        for try await update in chain.transcribe(stream: frames, options: TranscriptionOptions()) {
            if case .final(let transcript) = update { final = transcript }
        }
        #expect(final?.text == "hello")
        #expect(await resting.liveSessions == 0)
        #expect(await serving.liveSessions == 1)
        #expect(logs.messages(at: .warning).contains { $0.contains("deepgram-eu is resting") })
    }

    @Test("TTS: a voice that fails mid-sentence is replaced for that whole sentence; nothing is heard twice")
    func ttsFailover() async throws {
        let fallback = ToneTextToSpeech(sampleRate: 16_000)
        let chain = TextToSpeechChain(providers: [BrokenMidSentence(), fallback], health: ProviderHealth(clock: clock), logger: logs.logger())
        var chunks: [AudioBuffer] = []
        for try await chunk in chain.synthesize("First sentence. Second one.", options: SpeechOptions()) { chunks.append(chunk) }
        #expect(chunks.count == 2)
        #expect(await fallback.spoken == ["First sentence.", "Second one."])
        #expect(chunks.allSatisfy { !$0.samples.starts(with: [0.9, 0.9]) })
    }

    @Test("VAD: without Silero's weights the chain uses the energy detector and says why")
    func vadFallback() throws {
        struct Missing: VoiceActivityDetector {
            let identity = ProviderIdentity(name: "silero", model: "v6", isLocal: true)
            let sampleRate = 16_000
            let frameSize = 512
            func availability() async -> Availability { .missingModel(path: "/x", hint: "run scripts/setup") }
            func makeSession() throws -> any VoiceActivitySession {
                throw ProviderError.unavailable(provider: "silero (v6)", .missingModel(path: "/x", hint: "run scripts/setup"))
            }
        }
        let chain = VoiceActivityDetectorChain([Missing(), EnergyVoiceActivityDetector()], logger: logs.logger())
        #expect(try chain.activeDetector().identity.name == "energy")
        #expect(logs.messages(at: .warning).first?.hasPrefix("[VAD] silero (v6): silero (v6) is not available") == true)
        var session = try chain.makeSession()
        #expect(session.speechProbability(of: [Float](repeating: 0, count: 512)) < 0.1)
    }
}
