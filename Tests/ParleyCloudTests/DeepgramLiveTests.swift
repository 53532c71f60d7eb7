import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
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
