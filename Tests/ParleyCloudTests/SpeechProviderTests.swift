import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

@Suite("HTTP speech providers against their wire formats")
struct SpeechProviderTests {
    let speech = AudioBuffer(samples: (0..<8_000).map { Float(sin(Double($0) * 0.05)) * 0.4 }, sampleRate: 16_000)

    /// Raw little-endian 16-bit PCM of `count` samples of a ramp.
    static func pcm(_ count: Int) -> Data {
        Data(
            (0..<count).flatMap { index -> [UInt8] in
                let value = Int16(truncatingIfNeeded: index * 10)
                return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
            })
    }

    @Test("OpenAI transcription: multipart upload with model, language and a WAV file")
    func openAITranscription() async throws {
        let server = try await WireServer.start { _ in .json(200, #"{"text":" What is the capital of France? "}"#) }
        defer { server.stop() }
        let stt = OpenAISpeechToText(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "sk-test", model: "whisper-1"))
        let transcript = try await stt.transcribe(speech, options: TranscriptionOptions(language: "en"))
        #expect(transcript.text == "What is the capital of France?")
        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/v1/audio/transcriptions")
        #expect(sent.headers["authorization"] == "Bearer sk-test")
        #expect(sent.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        let body = String(decoding: sent.body, as: UTF8.self)
        #expect(body.contains("name=\"model\"\r\n\r\nwhisper-1\r\n"))
        #expect(body.contains("name=\"language\"\r\n\r\nen\r\n"))
        #expect(body.contains("filename=\"audio.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF"))
    }

    @Test("Deepgram listen: Token auth, nova-3, WAV body, transcript from the documented JSON")
    func deepgramListen() async throws {
        let reply = #"{"metadata":{"duration":0.5},"results":{"channels":[{"alternatives":[{"transcript":"hello world","confidence":0.99,"words":[]}]}]}}"#
        let server = try await WireServer.start { _ in .json(200, reply) }
        defer { server.stop() }
        let stt = DeepgramSpeechToText(configuration: .init(baseURL: server.baseURL, apiKey: "dg-key", model: "nova-3"))
        #expect(try await stt.transcribe(speech, options: TranscriptionOptions()).text == "hello world")
        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/v1/listen")
        #expect(sent.query.contains("model=nova-3"))
        #expect(sent.headers["authorization"] == "Token dg-key")
        #expect(sent.headers["content-type"] == "audio/wav")
        #expect(sent.body.prefix(4) == Data("RIFF".utf8))
    }

    @Test("Deepgram's documented error body becomes a typed error")
    func deepgramError() async throws {
        let server = try await WireServer.start { _ in .json(401, #"{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials.","request_id":"x"}"#) }
        defer { server.stop() }
        let stt = DeepgramSpeechToText(configuration: .init(baseURL: server.baseURL, apiKey: "bad", model: "nova-3"))
        await #expect(throws: HTTPProviderError(provider: "deepgram", kind: .authentication(status: 401), message: "Invalid credentials.")) {
            _ = try await stt.transcribe(speech, options: TranscriptionOptions())
        }
    }

    @Test("AssemblyAI: upload, create, poll through queued and processing to completed")
    func assemblyAI() async throws {
        let polls = PollCounter()
        let server = try await WireServer.start { request in
            switch (request.method, request.path) {
            case ("POST", "/v2/upload"): return .json(200, #"{"upload_url":"https://cdn.example/upload/abc"}"#)
            case ("POST", "/v2/transcript"): return .json(200, #"{"id":"t1","status":"queued"}"#)
            case ("GET", "/v2/transcript/t1"):
                let count = await polls.next()
                return .json(200, count < 2 ? #"{"id":"t1","status":"processing"}"# : #"{"id":"t1","status":"completed","text":"Turn on the lights."}"#)
            default: return .json(404, #"{"error":"not found"}"#)
            }
        }
        defer { server.stop() }
        let stt = AssemblyAISpeechToText(
            configuration: .init(baseURL: server.baseURL, apiKey: "aai-key", model: "universal"),
            pause: { _ in await Task.yield() })
        #expect(try await stt.transcribe(speech, options: TranscriptionOptions()).text == "Turn on the lights.")
        let requests = await server.requests
        #expect(requests.map(\.path) == ["/v2/upload", "/v2/transcript", "/v2/transcript/t1", "/v2/transcript/t1", "/v2/transcript/t1"])
        #expect(requests.allSatisfy { $0.headers["authorization"] == "aai-key" })
        #expect(requests[1].json?["audio_url"] as? String == "https://cdn.example/upload/abc")
    }

    @Test("AssemblyAI: a transcript with status error is a typed error with its message")
    func assemblyAIError() async throws {
        let server = try await WireServer.start { request in
            switch request.path {
            case "/v2/upload": return .json(200, #"{"upload_url":"u"}"#)
            default: return .json(200, #"{"id":"t2","status":"error","error":"Audio file could not be decoded"}"#)
            }
        }
        defer { server.stop() }
        let stt = AssemblyAISpeechToText(configuration: .init(baseURL: server.baseURL, apiKey: "k", model: "universal"), pause: { _ in })
        await #expect(throws: HTTPProviderError.self) { _ = try await stt.transcribe(speech, options: TranscriptionOptions()) }
    }

    @Test("TTS: OpenAI, Deepgram Aura and ElevenLabs stream PCM split at odd byte boundaries", arguments: ["openai", "deepgram", "elevenlabs"])
    func streamedSpeech(name: String) async throws {
        let pcm = Self.pcm(4_001)
        // Odd chunk sizes put a sample's two bytes in different chunks.
        let chunks = stride(from: 0, to: pcm.count, by: 333).map { pcm[$0..<min(pcm.count, $0 + 333)] }.map { Data($0) }
        let server = try await WireServer.start { _ in .stream(contentType: "application/octet-stream", chunks: chunks) }
        defer { server.stop() }
        let configuration = SpeechServiceConfiguration(baseURL: server.baseURL + (name == "openai" ? "/v1" : ""), apiKey: "key", model: "m1")
        let tts: any TextToSpeechProvider =
            switch name {
            case "openai": OpenAITextToSpeech(configuration: configuration)
            case "deepgram": DeepgramTextToSpeech(configuration: configuration)
            default: ElevenLabsTextToSpeech(configuration: configuration, defaultVoice: "voice9")
            }
        var received: [Float] = []
        var chunkCount = 0
        var rate = 0
        for try await chunk in tts.synthesize("Hello there.", options: SpeechOptions()) {
            received += chunk.samples
            chunkCount += 1
            rate = chunk.sampleRate
        }
        #expect(received.count == 4_001)
        #expect(received[4_000] == Float(40_000 - 65_536) / 32768)  // 40,000 wraps to a negative Int16
        #expect(received[1] == Float(10) / 32768)
        #expect(chunkCount > 1)
        let sent = try #require(await server.requests.first)
        switch name {
        case "openai":
            #expect(rate == 24_000)
            #expect(sent.path == "/v1/audio/speech" && sent.headers["authorization"] == "Bearer key")
            #expect(sent.json?["response_format"] as? String == "pcm")
            #expect(sent.json?["input"] as? String == "Hello there.")
        case "deepgram":
            #expect(rate == 24_000)
            #expect(sent.path == "/v1/speak" && sent.headers["authorization"] == "Token key")
            #expect(sent.query.contains("encoding=linear16") && sent.query.contains("model=m1"))
            #expect(sent.json?["text"] as? String == "Hello there.")
        default:
            #expect(rate == 16_000)
            #expect(sent.path == "/v1/text-to-speech/voice9/stream" && sent.headers["xi-api-key"] == "key")
            #expect(sent.query == "output_format=pcm_16000")
            #expect(sent.json?["model_id"] as? String == "m1")
        }
    }

    @Test("ElevenLabs' documented error body, with a 429's Retry-After")
    func elevenLabsError() async throws {
        let server = try await WireServer.start { _ in
            .json(429, #"{"detail":{"status":"too_many_concurrent_requests","message":"Too many concurrent requests"}}"#, headers: ["retry-after": "2"])
        }
        defer { server.stop() }
        let tts = ElevenLabsTextToSpeech(configuration: .init(baseURL: server.baseURL, apiKey: "k", model: "m"))
        await #expect(throws: HTTPProviderError(provider: "elevenlabs", kind: .rateLimited(retryAfter: .seconds(2)), message: "Too many concurrent requests")) {
            for try await _ in tts.synthesize("Hi.", options: SpeechOptions()) {}
        }
    }

    @Test("Piper over HTTP answers with a WAV file")
    func piper() async throws {
        let wav = WAV.encode(AudioBuffer(samples: [0.5, -0.5, 0.25], sampleRate: 22_050))
        let server = try await WireServer.start { request in
            request.path == "/voices" ? .json(200, "{}") : .body(status: 200, contentType: "audio/wav", wav)
        }
        defer { server.stop() }
        let tts = PiperHTTPTextToSpeech(baseURL: server.baseURL)
        #expect(await tts.availability() == .ready)
        #expect(tts.identity.isLocal)
        let audio = try await tts.synthesizeAll("Hello.")
        #expect(audio.sampleRate == 22_050 && audio.samples.count == 3)
        #expect(await server.requests.last?.json?["text"] as? String == "Hello.")
    }
}

actor PollCounter {
    private var count = 0
    func next() -> Int { defer { count += 1 }; return count }
}
