import Foundation
import ParleyCore
import Testing

/// `/health`, `/metrics` and `/v1/models`.
@Suite("health, metrics and models")
struct HealthAndMetricsTests {
    @Test("/health: liveness and every capability's chain with each provider's state")
    func health() async throws {
        let server = try await TestServer.start(settings: ["OLLAMA_HOST": "http://127.0.0.1:9"])
        defer { server.stop() }
        let reply = try await server.send(.GET, "/health")
        #expect(reply.status == 200)
        let json = try #require(reply.json)
        #expect(json["status"] as? String == "ok")
        let capabilities = try #require(json["capabilities"] as? [[String: Any]])
        #expect(capabilities.compactMap { $0["capability"] as? String } == ["LLM", "STT", "TTS", "VAD"])
        let llm = try #require(capabilities.first { $0["capability"] as? String == "LLM" }?["chain"] as? [[String: Any]])
        let local = try #require(llm.first { $0["name"] as? String == "local" })
        #expect(local["available"] as? Bool == true && local["configured"] as? Bool == true && local["health"] as? String == "healthy")
        let ollama = try #require(llm.first { $0["name"] as? String == "ollama" })
        #expect(ollama["configured"] as? Bool == true && ollama["available"] as? Bool == false)
        #expect((ollama["reason"] as? String)?.contains("unreachable") == true, "\(ollama)")
        let openai = try #require(llm.first { $0["name"] as? String == "openai" })
        #expect(openai["configured"] as? Bool == false)
    }

    @Test("/metrics: requests by route and status, in Prometheus text")
    func metrics() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        _ = try await server.send(.GET, "/v1/models")
        _ = try await server.send(.GET, "/v1/unknown")
        _ = try await server.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "hi"]]])
        _ = try await server.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "hi"]], "stream": true])
        // A stream is counted once its last byte is written, a moment after the client has it.
        let streamed = #"parley_http_requests_total{route="/v1/chat/completions",method="POST",status="200"} 2"#
        var reply = try await server.send(.GET, "/metrics")
        for _ in 0..<50 where !reply.text.contains(streamed) { reply = try await server.send(.GET, "/metrics") }
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true)
        let text = reply.text
        #expect(text.contains(#"parley_http_requests_total{route="/v1/models",method="GET",status="200"} 1"#), "\(text)")
        #expect(text.contains(#"parley_http_requests_total{route="unmatched",method="GET",status="404"} 1"#), "\(text)")
        #expect(text.contains(streamed), "\(text)")
        #expect(text.contains(#"parley_http_request_duration_seconds_bucket{route="/v1/models",method="GET",status="200",le="#))
        #expect(text.contains(#"parley_tokens_total{provider="scripted",kind="output"}"#), "\(text)")
        #expect(text.contains(#"parley_provider_requests_total{capability="LLM",provider="scripted"} 2"#), "\(text)")
    }

    @Test("/v1/models: auto and every provider, in OpenAI's list shape")
    func models() async throws {
        let server = try await TestServer.start(settings: ["OLLAMA_HOST": "http://127.0.0.1:9"])
        defer { server.stop() }
        let reply = try await server.send(.GET, "/v1/models")
        #expect(reply.status == 200)
        #expect(reply.json?["object"] as? String == "list")
        let models = try #require(reply.json?["data"] as? [[String: Any]])
        let ids = models.compactMap { $0["id"] as? String }
        #expect(ids.first == "auto")
        #expect(Set(["local", "openai", "anthropic", "ollama", "deepgram", "elevenlabs"]).isSubset(of: Set(ids)))
        #expect(models.allSatisfy { $0["object"] as? String == "model" && $0["created"] is Int && $0["owned_by"] is String })
        let local = try #require(models.first { $0["id"] as? String == "local" })
        // Embeddings too when the on-device embedding model is installed (scripts/setup).
        let embeds = FileManager.default.fileExists(atPath: server.runtime.paths.defaultEmbeddingModel.path)
        #expect(local["capabilities"] as? [String] == ["LLM", "STT", "TTS"] + (embeds ? ["embeddings"] : []))
        #expect(models.first { $0["id"] as? String == "ollama" }?["configured"] as? Bool == true)
        #expect(models.first { $0["id"] as? String == "anthropic" }?["configured"] as? Bool == false)

        let one = try await server.send(.GET, "/v1/models/local")
        #expect(one.status == 200 && one.json?["id"] as? String == "local")
    }
}
