import Foundation
import ParleyCore
import ParleyTestServers
import Testing

extension OnDeviceServerTests {
    /// A dead cloud provider in front of the on-device engines: every endpoint still answers,
    /// and says who did.
    @Suite("fallbacks under every endpoint")
    struct Fallbacks {
        @Test("chat: OPENAI_BASE_URL at a dead port → the on-device model answers, whole and streamed")
        func chat() async throws {
            let server = try await TestServer.start(settings: ["OPENAI_BASE_URL": RefusingPort.baseURL() + "/v1"])
            defer { server.stop() }
            let question: [String: Any] = [
                "model": "gpt-4o-mini", "temperature": 0, "max_tokens": 48,
                "messages": [["role": "user", "content": "What is the capital of France?"]],
            ]
            let whole = try await server.post("/v1/chat/completions", json: question)
            #expect(whole.status == 200, "\(whole.text)")
            #expect(whole.headers["x-parley-provider"] == "llama.cpp")
            let content = ((whole.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            #expect(content?.contains("Paris") == true, "\(whole.text)")

            var streamed = question
            streamed["stream"] = true
            let stream = try await server.post("/v1/chat/completions", json: streamed)
            #expect(stream.status == 200)
            #expect(stream.headers["x-parley-provider"] == "llama.cpp")
            #expect(events(in: stream.text).last == "[DONE]")

            let metrics = try await server.send(.GET, "/metrics").text
            #expect(metrics.contains(#"parley_fallbacks_total{capability="LLM",provider="openai (gpt-4o-mini)",reason="unreachable"}"#), "\(metrics)")
            #expect(metrics.contains(#"parley_provider_requests_total{capability="LLM",provider="llama.cpp"#))
        }

        @Test("transcription and speech: a dead OpenAI → whisper.cpp and the neural voice answer")
        func speech() async throws {
            let server = try await TestServer.start(settings: ["OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": RefusingPort.baseURL() + "/v1"])
            defer { server.stop() }
            var form = FormBody()
            form.add("model", "whisper-1")
            form.add(file: "file", filename: "question.wav", try Samples.question())
            let transcript = try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
            #expect(transcript.status == 200, "\(transcript.text)")
            #expect(transcript.headers["x-parley-provider"] == "whisper.cpp")
            #expect((transcript.json?["text"] as? String)?.lowercased().contains("france") == true, "\(transcript.text)")

            let speech = try await server.post("/v1/audio/speech", json: ["model": "tts-1", "voice": "alloy", "input": "Paris.", "response_format": "wav"])
            #expect(speech.status == 200, "\(speech.text)")
            #expect(speech.headers["x-parley-provider"] == "sherpa-onnx")
            #expect(try WAV.decode(speech.body).duration > 0.2)
        }

        @Test("a provider named on its own that is down is a 503 saying why; one that is not set up is never asked, a 400 saying how")
        func namedProviderDown() async throws {
            let server = try await TestServer.start(settings: ["OPENAI_BASE_URL": RefusingPort.baseURL() + "/v1"])
            defer { server.stop() }
            let reply = try await server.post("/v1/chat/completions", json: ["model": "openai", "messages": [["role": "user", "content": "hi"]]])
            expectOpenAIError(reply, status: 503, type: "server_error", code: "provider_unavailable")
            let anthropic = try await server.post("/v1/chat/completions", json: ["model": "anthropic", "messages": [["role": "user", "content": "hi"]]])
            expectOpenAIError(anthropic, status: 400, type: "invalid_request_error")
            #expect((anthropic.error?["message"] as? String)?.contains("ANTHROPIC_API_KEY") == true, "\(anthropic.text)")
        }
    }
}
