import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import ParleyTesting
import Testing

@Suite("Deepgram live transcription over WebSocket", .timeLimit(.minutes(1)))
struct DeepgramLiveTests {
    func provider(_ baseURL: String, key: String? = "dg-key") -> DeepgramSpeechToText {
        DeepgramSpeechToText(configuration: .init(baseURL: baseURL, apiKey: key, model: "nova-3"))
    }

    /// 2 s of a tone at 48 kHz, in 100 ms frames (the client converts to 16 kHz as it streams).
    func frames() -> AsyncStream<AudioBuffer> {
        AsyncStream { continuation in
            for frame in 0..<20 {
                let samples = (0..<4_800).map { Float(0.2 * sin(Double(frame * 4_800 + $0) * 0.05)) }
                continuation.yield(AudioBuffer(samples: samples, sampleRate: 48_000))
            }
            continuation.finish()
        }
    }

    @Test("audio streams up as 16 kHz PCM; interim results are partials; the final joins the final results")
    func liveSession() async throws {
        let server = try await DeepgramLiveServer.start(.transcribe(segments: ["What is the capital", "of France?"], bytesPerMessage: 16_000))
        defer { server.stop() }
        var partials: [String] = []
        var final: Transcript?
        for try await update in provider(server.baseURL).transcribe(stream: frames(), options: TranscriptionOptions()) {
            switch update {
            case .partial(let text): partials.append(text)
            case .final(let transcript): final = transcript
            }
        }
        #expect(final?.text == "What is the capital of France?")
        #expect(partials.first == "What")
        #expect(partials.contains("What is the capital of"))
        let session = try #require(await server.waitForSessions(1).first)
        #expect(session.path == "/v1/listen")
        #expect(session.authorization == "Token dg-key")
        for parameter in ["model=nova-3", "encoding=linear16", "sample_rate=16000", "channels=1", "interim_results=true", "language=en"] {
            #expect(session.query.split(separator: "&").contains(Substring(parameter)), "\(session.query)")
        }
        // 2 s at 16 kHz, 2 bytes a sample.
        #expect(session.audioBytes == 64_000)
        #expect(session.sentCloseStream)
    }

    @Test("a session the server closes with an error code is a typed error naming the reason")
    func closedWithError() async throws {
        let server = try await DeepgramLiveServer.start(.fail(closeCode: 1008, reason: "DATA-0000: the audio could not be decoded"))
        defer { server.stop() }
        await #expect {
            for try await _ in provider(server.baseURL).transcribe(stream: frames(), options: TranscriptionOptions()) {}
        } throws: { error in
            let error = error as? HTTPProviderError
            return error?.message.contains("DATA-0000") == true
        }
    }

    @Test("no key: the stream fails at once with the variable to set, and nothing is sent")
    func missingKey() async throws {
        let server = try await DeepgramLiveServer.start(.transcribe(segments: ["x"], bytesPerMessage: 1))
        defer { server.stop() }
        await #expect(throws: ProviderError.self) {
            for try await _ in provider(server.baseURL, key: nil).transcribe(stream: frames(), options: TranscriptionOptions()) {}
        }
        #expect(await server.sessions.isEmpty)
    }
}

@Suite("Live transcription through a chain and a conversation", .timeLimit(.minutes(1)))
struct LiveChainTests {
    func speech(_ seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 150 * Double($0) / 16_000)) }
    }

    @Test("a conversation on Deepgram's live API: the turn's transcript is the session's finals")
    func conversation() async throws {
        let server = try await DeepgramLiveServer.start(.transcribe(segments: ["What is the capital", "of France?"], bytesPerMessage: 16_000))
        defer { server.stop() }
        let stt = DeepgramSpeechToText(configuration: .init(baseURL: server.baseURL, apiKey: "dg", model: "nova-3"))
        let conversation = ConversationSession(
            vad: EnergyVoiceActivityDetector(), stt: stt, llm: ScriptedLanguageModel(replies: [["Paris."]]), tts: ToneTextToSpeech(),
            output: RecordingOutput(clock: ContinuousClock(), realtime: false), configuration: .init(duplex: .half))
        let samples = [Float](repeating: 0, count: 8_000) + speech(2) + [Float](repeating: 0, count: 24_000)
        let frames = AsyncStream<AudioBuffer> { continuation in
            for offset in stride(from: 0, to: samples.count, by: 1_600) {
                continuation.yield(AudioBuffer(samples: Array(samples[offset..<min(samples.count, offset + 1_600)]), sampleRate: 16_000))
            }
            continuation.finish()
        }
        let turns = try await conversation.run(frames)
        #expect(turns.first?.transcript == "What is the capital of France?")
        #expect(turns.first?.partialTranscripts.contains("What") == true)
        #expect(turns.first?.reply == "Paris.")
    }

    @Test("a live session that fails mid-way is replaced by the next provider on the whole utterance, with a warning")
    func failover() async throws {
        let server = try await DeepgramLiveServer.start(.fail(closeCode: 1011, reason: "NET-0001: internal error"))
        defer { server.stop() }
        let logs = CapturedLogs()
        let backup = ScriptedSpeechToText(transcripts: ["What is the capital of France?"])
        let chain = SpeechToTextChain(
            providers: [DeepgramSpeechToText(configuration: .init(baseURL: server.baseURL, apiKey: "dg", model: "nova-3")), backup],
            health: ProviderHealth(clock: ContinuousClock()), logger: logs.logger(label: "chain"))
        #expect(await chain.transcribesLive)
        let frames = AsyncStream<AudioBuffer> { continuation in
            for _ in 0..<10 { continuation.yield(AudioBuffer(samples: speech(0.1), sampleRate: 16_000)) }
            continuation.finish()
        }
        var final: Transcript?
        for try await update in chain.transcribe(stream: frames, options: TranscriptionOptions()) {
            if case .final(let transcript) = update { final = transcript }
        }
        #expect(final?.text == "What is the capital of France?")
        let replayed = try #require(await backup.received.first)
        #expect(abs(replayed.duration - 1.0) < 0.01)
        #expect(logs.messages(at: .warning).contains { $0.contains("deepgram") && $0.contains("NET-0001") && $0.contains("whole utterance") })
    }
}
