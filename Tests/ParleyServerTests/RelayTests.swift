import Foundation
import ParleyCore
import ParleyRuntime
import ParleyTestServers
import ParleyTesting
import Testing

/// Chat completions passed through to an OpenAI-compatible server as they came, against a
/// real HTTP server on 127.0.0.1 that speaks OpenAI's wire format.
@Suite("chat completions relayed to an OpenAI-compatible server")
struct RelayTests {
    /// What the upstream answers: a whole completion with fields Parley does not model, or
    /// the same as server-sent events ending with a usage chunk.
    static let whole =
        #"{"id":"chatcmpl-up","object":"chat.completion","created":1700000000,"model":"up-model","system_fingerprint":"fp_1","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4}}}"#
    static let events = [
        #"data: {"id":"chatcmpl-up","object":"chat.completion.chunk","model":"up-model","choices":[{"index":0,"delta":{"role":"assistant","content":"Par"},"finish_reason":null}]}"#
            + "\n\n",
        #"data: {"id":"chatcmpl-up","object":"chat.completion.chunk","model":"up-model","choices":[{"index":0,"delta":{"content":"is."},"finish_reason":"stop"}]}"#
            + "\n\n",
        #"data: {"id":"chatcmpl-up","object":"chat.completion.chunk","model":"up-model","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#
            + "\n\n",
        "data: [DONE]\n\n",
    ]

    static func upstream(ignoringStream: Bool = false) async throws -> ScriptedServer {
        try await ScriptedServer.start { request in
            guard request.path.hasSuffix("/chat/completions") else { return .json(200, #"{"object":"list","data":[]}"#) }
            if request.json?["stream"] as? Bool == true, !ignoringStream {
                return .chunks(events.map { Data($0.utf8) }, contentType: "text/event-stream")
            }
            return .json(200, whole)
        }
    }

    /// OpenAI at `upstream` before the scripted on-device model.
    static func catalog(local: ScriptedLanguageModel = ScriptedLanguageModel(replies: [["Local", " answer."]])) -> ProviderCatalog {
        ProviderCatalog(
            entries: ProviderCatalog.standard.entries.filter { $0.capability == .languageModel && $0.name == "openai" }
                + TestServer.scriptedCatalog(model: local).entries)
    }

    /// A Parley server whose OpenAI provider is `upstream`.
    static func server(before upstream: ScriptedServer) async throws -> TestServer {
        try await TestServer.start(settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1"], catalog: catalog())
    }

    static var streamedQuestion: [String: Any] {
        [
            "model": "openai/up-model", "stream": true, "messages": [["role": "user", "content": "Capital of France?"]],
        ]
    }

    @Test("a whole completion comes back byte for byte; the server got the client's body with the provider's model")
    func whole() async throws {
        let upstream = try await Self.upstream()
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let body =
            #"{"model": "openai/up-model", "messages": [{"role": "user", "content": "Capital of France? \"Quoted\" {braces}"}], "max_tokens": 9, "user": "u-1"}"#
        let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.text == Self.whole)
        #expect(reply.headers["x-parley-provider"] == "openai" && reply.headers["x-parley-model"] == "up-model")
        let sent = try #require(await upstream.requests.last { $0.path.hasSuffix("/chat/completions") })
        #expect(String(decoding: sent.body, as: UTF8.self) == body.replacingOccurrences(of: #""openai/up-model""#, with: #""up-model""#))
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(metrics.contains(#"parley_tokens_total{provider="openai (up-model)",kind="input"} 12"#), "\(metrics)")
        #expect(metrics.contains(#"parley_tokens_total{provider="openai (up-model)",kind="output"} 3"#))
    }

    @Test("a stream comes back event for event, and its usage chunk is counted")
    func stream() async throws {
        let upstream = try await Self.upstream()
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let reply = try await server.post(
            "/v1/chat/completions",
            json: [
                "model": "openai/up-model", "stream": true, "stream_options": ["include_usage": true],
                "messages": [["role": "user", "content": "Capital of France?"]],
            ])
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/event-stream")
        #expect(reply.text == Self.events.joined())
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(metrics.contains(#"parley_tokens_total{provider="openai (up-model)",kind="input"} 9"#), "\(metrics)")
    }

    @Test("the chain relays to its first provider, and falls back on-device when that one fails before answering")
    func chain() async throws {
        let failing = FailFirst()
        let upstream = try await ScriptedServer.start { request in
            guard request.path.hasSuffix("/chat/completions") else { return .json(200, #"{"object":"list","data":[]}"#) }
            return await failing.next() ? .json(503, #"{"error":{"message":"overloaded","type":"server_error"}}"#) : .json(200, Self.whole)
        }
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let question: [String: Any] = ["model": "auto", "messages": [["role": "user", "content": "Capital of France?"]]]
        let fallback = try await server.post("/v1/chat/completions", json: question)
        #expect(fallback.status == 200, "\(fallback.text)")
        #expect(fallback.headers["x-parley-provider"] == "scripted")
        let content = ((fallback.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
        #expect(content == "Local answer.")
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(metrics.contains(#"parley_fallbacks_total{capability="LLM",provider="openai (gpt-4o-mini)""#), "\(metrics)")
        #expect(await upstream.requests.filter { $0.path.hasSuffix("/chat/completions") }.count == 1, "the failed provider is not asked twice")
    }

    @Test("the chain probes a self-hosted server once for several requests, even one that answers its probe with 404")
    func probedOnce() async throws {
        let upstream = try await ScriptedServer.start { request in
            request.path.hasSuffix("/chat/completions") ? .json(200, Self.whole) : .json(404, #"{"error":{"message":"no such route"}}"#)
        }
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let start = ContinuousClock.now
        for _ in 1...3 {
            let reply = try await server.post("/v1/chat/completions", json: ["model": "auto", "messages": [["role": "user", "content": "Hi"]]])
            #expect(reply.status == 200 && reply.text == Self.whole)
        }
        // No probe between the requests: one stands 5 s (the server's start may probe too, at
        // once). On a machine starved by the rest of the suite for longer, another is right.
        let paths = await upstream.requests.map(\.path)
        let later = paths.drop { !$0.hasSuffix("/chat/completions") }.filter { $0.hasSuffix("/models") }.count
        #expect(ContinuousClock.now - start < .seconds(5) ? later == 0 : later <= 2, "\(paths)")
    }

    @Test("a server that ignores `stream` still gives a streaming client server-sent events")
    func ignoredStream() async throws {
        let upstream = try await Self.upstream(ignoringStream: true)
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let reply = try await server.post("/v1/chat/completions", json: Self.streamedQuestion)
        #expect(reply.status == 200)
        let data = ParleyServerTests.events(in: reply.text)
        #expect(data.last == "[DONE]")
        #expect(data.contains { $0.contains(#""content":"Paris.""#) }, "\(reply.text)")
    }

    @Test("a stream cut by the server ends with an error event")
    func cut() async throws {
        let upstream = try await ScriptedServer.start { _ in
            .chunks([Data(Self.events[0].utf8)], contentType: "text/event-stream", ending: .cut)
        }
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let reply = try await server.post("/v1/chat/completions", json: Self.streamedQuestion)
        #expect(reply.status == 200)
        let data = ParleyServerTests.events(in: reply.text)
        #expect(data.first?.contains("Par") == true)
        #expect(data.last?.contains(#""error""#) == true, "\(reply.text)")
    }

    @Test("requests that need Parley's own reading are not relayed: a response schema goes through the structured generator")
    func schemaNotRelayed() async throws {
        let upstream = try await Self.upstream()
        defer { upstream.stop() }
        let server = try await Self.server(before: upstream)
        defer { server.stop() }
        let reply = try await server.post(
            "/v1/chat/completions",
            json: [
                "model": "openai/up-model", "messages": [["role": "user", "content": "Capital of France?"]],
                "response_format": ["type": "json_schema", "json_schema": ["name": "answer", "schema": ["type": "object"]]],
            ])
        let sent = try #require(await upstream.requests.last { $0.path.hasSuffix("/chat/completions") })
        #expect(sent.json?["stream"] as? Bool == true, "Parley's own request, streamed: \(String(decoding: sent.body, as: UTF8.self))")
        #expect(reply.text != Self.whole)
    }
}

/// Fails the first request only.
private actor FailFirst {
    private var failed = false

    func next() -> Bool {
        defer { failed = true }
        return !failed
    }
}
