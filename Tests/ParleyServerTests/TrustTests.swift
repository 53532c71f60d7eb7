import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTesting
import Testing

/// What no web page and no key may do: read or call the server from another origin or by a
/// rebinding name, post a cross-site form, swap the server's model without an admin key, learn
/// which files the server has; and limits that hold on every way in.
@Suite("Trust")
struct TrustTests {
    static let policy = BrowserPolicy(listening: "127.0.0.1", allowedOrigins: ["https://app.example"], allowedHosts: ["parley.internal"])

    static func request(
        origin: String? = nil, host: String? = "127.0.0.1:8080", site: String? = nil, method: String = "GET",
        type: String? = nil
    ) -> BrowserPolicy.Request {
        BrowserPolicy.Request(method: method, origin: origin, host: host, fetchSite: site, contentType: type)
    }

    @Test("origin and host rules: the server's own page, allowed origins and clients without Origin pass; the rest is refused")
    func policy() {
        let policy = Self.policy
        #expect(policy.refusal(of: Self.request()) == nil, "an SDK or curl sends no Origin")
        #expect(policy.refusal(of: Self.request(origin: "http://127.0.0.1:8080")) == nil, "the server's own page")
        #expect(policy.refusal(of: Self.request(origin: "https://app.example/")) == nil, "an allowed origin")
        #expect(policy.refusal(of: Self.request(origin: "https://evil.example")) == .foreignOrigin("https://evil.example"))
        #expect(policy.refusal(of: Self.request(origin: "null")) == .foreignOrigin("null"))
        #expect(policy.refusal(of: Self.request(origin: "http://127.0.0.1:9999")) == .foreignOrigin("http://127.0.0.1:9999"), "another port is another origin")
        #expect(policy.refusal(of: Self.request(site: "cross-site")) == .foreignOrigin("another site"))
        #expect(policy.refusal(of: Self.request(origin: "ws://127.0.0.1")) == nil, "a WebSocket library naming the server")
        #expect(policy.refusal(of: Self.request(origin: "wss://evil.example")) == .foreignOrigin("wss://evil.example"))
        // DNS rebinding: the page's own origin, but a name that is not the server's.
        #expect(policy.refusal(of: Self.request(origin: "http://evil.example:8080", host: "evil.example:8080")) == .foreignHost("evil.example:8080"))
        for host in ["localhost:8080", "127.0.0.1", "[::1]:8080", "10.0.0.2:8080", "parley.internal", "app.example", "sub.localhost"] {
            #expect(policy.allows(host: host), "\(host)")
        }
        for host in ["evil.example", "127.0.0.1.evil.example", "", "[::1"] { #expect(!policy.allows(host: host), "\(host)") }
        // A cross-site form can send these without asking; JSON and multipart from code pass.
        #expect(policy.refusal(of: Self.request(method: "POST", type: "text/plain;charset=UTF-8")) == .formPost("text/plain;charset=UTF-8"))
        #expect(policy.refusal(of: Self.request(method: "POST", type: "application/x-www-form-urlencoded")) != nil)
        #expect(policy.refusal(of: Self.request(method: "POST", type: "application/json")) == nil)
        #expect(policy.refusal(of: Self.request(method: "POST", type: "multipart/form-data; boundary=x")) == nil)
        #expect(policy.refusal(of: Self.request(method: "GET", type: "text/plain")) == nil)
        let open = BrowserPolicy(listening: "127.0.0.1", allowedOrigins: ["*"], allowedHosts: ["*"])
        #expect(open.refusal(of: Self.request(origin: "https://anyone.example", host: "anything.example")) == nil)
    }

    @Test("over HTTP: a foreign Origin or a rebinding Host gets 403, a form post 415; the page, SDKs and allowed origins go on")
    func http() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_ALLOWED_ORIGINS": "https://app.example"])
        defer { server.stop() }
        let own = "http://127.0.0.1:\(server.port)"
        #expect(try await server.send(.GET, "/v1/models").status == 200)
        #expect(try await server.send(.GET, "/v1/models", headers: [("origin", own)]).status == 200)
        #expect(try await server.send(.GET, "/v1/models", headers: [("origin", "https://app.example")]).status == 200)
        let foreign = try await server.send(.GET, "/v1/threads", headers: [("origin", "https://evil.example")])
        #expect(foreign.status == 403 && foreign.error?["code"] as? String == "origin_not_allowed", "\(foreign.text)")
        #expect(foreign.headers["x-request-id"] != nil, "a refused request has an id too")
        let rebound = try await RawHTTP.exchange(
            port: server.port, "GET /v1/threads HTTP/1.1\r\nHost: evil.example:\(server.port)\r\nConnection: close\r\n\r\n")
        #expect(rebound.hasPrefix("HTTP/1.1 403") && rebound.contains("host_not_allowed"), "\(rebound)")
        let form = try await server.send(.POST, "/v1/threads", headers: [("content-type", "text/plain")], body: Data("{}".utf8))
        #expect(form.status == 415, "\(form.text)")
        // The page's own files are still served, and a foreign origin cannot load them into a page's script either.
        #expect(try await server.send(.GET, "/").status == 200)
        #expect(try await server.send(.GET, "/health", headers: [("origin", "https://evil.example")]).status == 403)
    }

    @Test("a WebSocket from a foreign origin is refused before the upgrade; the server's own page and SDKs upgrade")
    func webSocket() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let foreign = try await WebSocketUpgrade.request(port: server.port, headers: [("Origin", "https://evil.example")])
        #expect(foreign.status == 403)
        let own = try await WebSocketUpgrade.request(port: server.port, headers: [("Origin", "http://127.0.0.1:\(server.port)")])
        #expect(own.status == 101)
        let sdk = try await WebSocketUpgrade.request(port: server.port, headers: [])
        #expect(sdk.status == 101)
    }

    @Test("only an admin key swaps the model; a path outside the models folder gets the message a missing file gets")
    func roles() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_API_KEYS": "user-key"]) { $0.adminKeys = ["admin-key"] }
        defer { server.stop() }
        let user = [("authorization", "Bearer user-key")], admin = [("authorization", "Bearer admin-key")]
        let refused = try await server.put("/v1/settings/model", json: ["model": "smollm2-135m"], headers: user)
        #expect(refused.status == 403 && refused.error?["code"] as? String == "admin_key_required", "\(refused.text)")
        #expect(try await server.send(.GET, "/v1/settings/model", headers: user).status == 200, "reading the setting is anyone's")
        let outside = try await server.put("/v1/settings/model", json: ["model": "/etc/hostname"], headers: admin)
        let missing = try await server.put("/v1/settings/model", json: ["model": "/etc/hostname-missing.gguf"], headers: admin)
        let climbing = try await server.put("/v1/settings/model", json: ["model": "../../../etc/hostname"], headers: admin)
        #expect(outside.status == 400 && missing.status == 400 && climbing.status == 400)
        let messages = [outside, missing, climbing].compactMap { $0.error?["message"] as? String }
        #expect(messages.count == 3 && Set(messages).count == 1 && !messages[0].contains("/etc"), "\(messages)")
        // The admin key is a key too.
        #expect(try await server.send(.GET, "/v1/models", headers: admin).status == 200)
        #expect(ModelSettingEndpoint.isInsideModelsFolder("smollm2-135m", folder: URL(fileURLWithPath: "/m")))
        #expect(ModelSettingEndpoint.isInsideModelsFolder("mine.gguf", folder: URL(fileURLWithPath: "/m")))
        #expect(!ModelSettingEndpoint.isInsideModelsFolder("/m/../etc/x.gguf", folder: URL(fileURLWithPath: "/m")))
        #expect(!ModelSettingEndpoint.isInsideModelsFolder("/mx/x.gguf", folder: URL(fileURLWithPath: "/m")))
    }

    @Test("/health tells a caller without a key only whether the server is up; a key gets the providers")
    func health() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_API_KEYS": "key"])
        defer { server.stop() }
        let open = try await server.send(.GET, "/health")
        #expect(open.status == 200 && open.json?["status"] != nil && open.json?["api_key_required"] as? Bool == true)
        #expect(open.json?["capabilities"] == nil, "\(open.text)")
        let keyed = try await server.send(.GET, "/health", headers: [("authorization", "Bearer key")])
        #expect((keyed.json?["capabilities"] as? [Any])?.isEmpty == false, "\(keyed.text)")
        let wrong = try await server.send(.GET, "/health", headers: [("authorization", "Bearer wrong")])
        #expect(wrong.status == 200 && wrong.json?["capabilities"] == nil)
    }

    @Test("a connection that asks for an upgrade the server does not make (h2c), then says nothing, is closed once idle")
    func refusedUpgradeIdles() async throws {
        let server = try await TestServer.scripted { $0.idleTimeout = .milliseconds(300) }
        defer { server.stop() }
        // With `Connection: Upgrade` the upgrade layer closes the connection at once; without
        // it the request is answered as HTTP, and the idle timeout closes the connection.
        for request in [
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: h2c\r\n\r\n",
        ] {
            let start = ContinuousClock.now
            let text = try await RawHTTP.exchange(port: server.port, request)
            #expect(text.isEmpty || text.hasPrefix("HTTP/1.1 200"), "\(text)")
            #expect(ContinuousClock.now - start < .seconds(10), "the client reads for 20 s unless the server closes")
        }
        // A POST that asks for a WebSocket is answered as plain HTTP, not held by the upgrade layer.
        let postStart = ContinuousClock.now
        let post = try await RawHTTP.exchange(
            port: server.port,
            "POST /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 4\r\n\r\n1e19"
        )
        #expect(post.hasPrefix("HTTP/1.1 4"), "\(post)")
        #expect(ContinuousClock.now - postStart < .seconds(10))
        // A refused WebSocket upgrade (a wrong key) keeps the idle timeout too.
        let keyed = try await TestServer.scripted(settings: ["PARLEY_API_KEYS": "k"]) { $0.idleTimeout = .milliseconds(300) }
        defer { keyed.stop() }
        let refusedStart = ContinuousClock.now
        let refused = try await RawHTTP.exchange(
            port: keyed.port,
            "GET /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
        // Closed at once when the machine is idle; under a loaded suite, by the upgrade's 10 s
        // grace at the latest: never left open (the client gives up at 20 s).
        #expect(ContinuousClock.now - refusedStart < .seconds(18))
    }

    @Test("realtime audio queued beyond the byte limit is refused with an error; the session goes on")
    func realtimeBytes() async throws {
        let server = try await TestServer.scripted { $0.maxRealtimeQueuedAudioBytes = 100_000 }
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            // Five seconds at 24 kHz: 480 kB of samples, past the 100 kB the server holds.
            let big = Data(count: 24_000 * 2 * 5).base64EncodedString()
            try await client.send(["type": "input_audio_buffer.append", "audio": big])
            let error = try await client.next("error")
            #expect((error["error"] as? [String: Any])?["code"] as? String == "input_audio_buffer_full", "\(error)")
            try await client.send(["type": "session.update", "session": ["instructions": "Be brief."]])
            try await client.next("session.updated")
        }
    }

    @Test("limits bite on the relay on the event loop: requests, and tokens reported by the upstream")
    func relayLimits() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        // Each answer reports 12 + 3 tokens: a limit of 20 lets the second request in (the
        // first left 5) and refuses the third.
        let server = try await TestServer.start(
            settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1", "PARLEY_RATE_LIMIT_TPM": "20"],
            catalog: RelayTests.catalog())
        defer { server.stop() }
        let question = Data(EventLoopRelayTests.question.utf8)
        let json = [("content-type", "application/json")]
        #expect(try await server.send(.POST, "/v1/chat/completions", headers: json, body: question).status == 200)
        // One connection: its first request goes to the router, the next ones are relayed on the event loop.
        let chat =
            "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(question.count)\r\n\r\n"
            + EventLoopRelayTests.question
        let text = try await RawHTTP.exchange(
            port: server.port,
            "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + chat
                + chat.replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: 127.0.0.1\r\nConnection: close\r\n"))
        let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["200", "200", "429"], "\(text)")
        #expect(text.contains("x-request-id: "), "the relay's answers carry the request id")
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(EventLoopRelayTests.relays(metrics, lane: "event_loop") == 1, "\(metrics)")

        let counted = try await TestServer.start(
            settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1", "PARLEY_RATE_LIMIT_RPM": "2"],
            catalog: RelayTests.catalog())
        defer { counted.stop() }
        #expect(try await counted.send(.POST, "/v1/chat/completions", headers: json, body: question).status == 200)
        let again = try await RawHTTP.exchange(
            port: counted.port,
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + chat
                + chat.replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: 127.0.0.1\r\nConnection: close\r\n"))
        let counts = again.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(counts == ["200", "200", "429"], "\(again)")
    }

    @Test("limits bite on the usual relay (tokens the upstream reports), mind maps and compare")
    func otherPaths() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        let server = try await TestServer.start(
            settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1", "PARLEY_RATE_LIMIT_TPM": "20"],
            catalog: RelayTests.catalog())
        defer { server.stop() }
        // Streamed requests are relayed the usual way, never on the event loop.
        let streamed = try JSONSerialization.data(withJSONObject: RelayTests.streamedQuestion)
        let json = [("content-type", "application/json")]
        // Each streamed answer reports 9 + 2 tokens: the first leaves 9 of 20, the second -2.
        for _ in 1...2 {
            #expect(try await server.send(.POST, "/v1/chat/completions", headers: json, body: streamed).status == 200)
        }
        #expect(try await server.send(.POST, "/v1/chat/completions", headers: json, body: streamed).status == 429)
        #expect(try await server.post("/v1/parley/compare", json: ["capability": "chat", "prompt": "Hi"]).status == 429)
        #expect(try await server.post("/v1/mindmaps", json: ["text": "Volcanoes erupt."]).status == 429)
    }

    @Test("realtime replies pass the key's limits one by one: the upgrade takes one request, each reply one more")
    func realtimeLimits() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_RATE_LIMIT_RPM": "2"])
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            func ask() async throws {
                try await client.send([
                    "type": "conversation.item.create",
                    "item": [
                        "type": "message", "role": "user", "content": [["type": "input_text", "text": "What is the capital of France?"]],
                    ],
                ])
                try await client.send(["type": "response.create"])
            }
            // The first reply is the key's second request.
            try await ask()
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            let limits = try await client.next("rate_limits.updated")
            #expect((limits["rate_limits"] as? [[String: Any]])?.first?["name"] as? String == "requests")
            // The second reply is over the limit: refused with an error, the session goes on.
            try await ask()
            let refused = try await client.next("error")
            #expect((refused["error"] as? [String: Any])?["code"] as? String == "rate_limit_exceeded", "\(refused)")
        }
        // Plain HTTP from the same key is over its limit too.
        #expect(try await server.send(.GET, "/v1/models").status == 429)
    }

    @Test("numbers from clients never trap: 1e19 and friends are 400s")
    func numbers() async throws {
        #expect(JSONValue.number(1e19).integer(in: 0...Int.max) == nil)
        #expect(JSONValue.number(-1e19).integer(in: Int.min...0) == nil)
        #expect(JSONValue.number(9_223_372_036_854_775_808).integer(in: 0...Int.max) == nil)
        #expect(JSONValue.number(2.5).integer(in: 0...10) == nil)
        #expect(JSONValue.number(7).integer(in: 0...10) == 7)
        #expect(JSONValue.string("7").integer(in: 0...10) == nil)
        #expect(Usage(inputTokens: .max, outputTokens: 5).totalTokens == .max)
        #expect(RateLimits.tokens(of: Usage(inputTokens: .max, outputTokens: .max)) == 2_000_000_000)
        #expect(RateLimits.wholeSeconds(.infinity) == 0 && RateLimits.wholeSeconds(1e300) == 86_400)
        let server = try await TestServer.scripted()
        defer { server.stop() }
        for body in [
            #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":1e19}"#,
            #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":9223372036854775807}"#,
            #"{"messages":[{"role":"user","content":"Hi"}],"temperature":1e308}"#,
        ] {
            let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
            #expect(reply.status == 400, "\(body): \(reply.text)")
        }
        let responses = try await server.send(
            .POST, "/v1/responses", headers: [("content-type", "application/json")],
            body: Data(#"{"input":"Hi","max_output_tokens":1e19}"#.utf8))
        #expect(responses.status == 400, "\(responses.text)")
        #expect(try await server.send(.GET, "/health").status == 200)
    }
}
