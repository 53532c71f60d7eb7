import Foundation
import ParleyCloud
import ParleyCore
import Testing

extension OnDeviceServerTests {
    /// `/v1/audio/transcriptions` and `/v1/audio/speech` on the on-device engines.
    @Suite("audio endpoints on the on-device engines")
    struct AudioEndpoints {
        static func words(_ text: String) -> [String] {
            text.lowercased().split { !$0.isLetter }.map(String.init)
        }

        @Test("a multipart upload of the spoken question is transcribed, in each response format", arguments: ["json", "text", "verbose_json"])
        func transcription(format: String) async throws {
            let server = try await TestServer.onDevice.value
            var form = FormBody()
            form.add("model", "whisper-1")
            form.add("response_format", format)
            form.add(file: "file", filename: "question.wav", try Samples.question())
            let reply = try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["x-parley-provider"] == "whisper.cpp")
            let text: String
            switch format {
            case "text":
                #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true)
                text = reply.text
            case "verbose_json":
                let json = try #require(reply.json)
                #expect(json["task"] as? String == "transcribe")
                #expect((json["duration"] as? Double ?? 0) > 1)
                #expect((json["segments"] as? [[String: Any]])?.isEmpty == false)
                text = json["text"] as? String ?? ""
            default:
                text = reply.json?["text"] as? String ?? ""
            }
            #expect(Self.words(text).contains("capital") && Self.words(text).contains("france"), "transcript: \(text)")
        }

        @Test("Parley's own OpenAI speech-to-text client transcribes through the server")
        func parleyTranscriptionClient() async throws {
            let server = try await TestServer.onDevice.value
            let client = OpenAISpeechToText(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: nil, model: "whisper-1"))
            let transcript = try await client.transcribe(try WAV.decode(try Samples.question()), options: TranscriptionOptions())
            #expect(Self.words(transcript.text).contains("france"), "transcript: \(transcript.text)")
        }

        @Test("speech comes back as a valid WAV with the provider named")
        func speechWAV() async throws {
            let server = try await TestServer.onDevice.value
            let reply = try await server.post(
                "/v1/audio/speech",
                json: [
                    "model": "tts-1", "voice": "alloy", "input": "Paris is the capital of France.",
                    "response_format": "wav",
                ])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["content-type"] == "audio/wav")
            // OpenAI's voice names mean the default voice: the neural one.
            #expect(reply.headers["x-parley-provider"] == "sherpa-onnx")
            let audio = try WAV.decode(reply.body)
            #expect(audio.duration > 1 && audio.duration < 10, "\(audio.duration) s")
            #expect(audio.peak > 0.05)
        }

        @Test("speech as raw 24 kHz PCM, read by Parley's own OpenAI text-to-speech client")
        func speechPCM() async throws {
            let server = try await TestServer.onDevice.value
            let reply = try await server.post("/v1/audio/speech", json: ["input": "Hello there. How are you?", "response_format": "pcm", "voice": "en-gb"])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["content-type"] == "audio/pcm")
            #expect(reply.body.count % 2 == 0 && reply.body.count > 24_000)

            let client = OpenAITextToSpeech(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: nil, model: "tts-1"))
            let audio = try await client.synthesizeAll("The capital of France is Paris.")
            #expect(audio.sampleRate == 24_000)
            #expect(audio.duration > 1, "\(audio.duration) s")
        }

        @Test("speech that the transcriber reads back")
        func roundTrip() async throws {
            let server = try await TestServer.onDevice.value
            let speech = try await server.post("/v1/audio/speech", json: ["input": "What is the capital of France?", "voice": "en-us"])
            #expect(speech.status == 200)
            var form = FormBody()
            form.add(file: "file", filename: "speech.wav", speech.body)
            let reply = try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
            let text = reply.json?["text"] as? String ?? ""
            #expect(Self.words(text).contains("france"), "transcript: \(text)")
        }
    }
}
