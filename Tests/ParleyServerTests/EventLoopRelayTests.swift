import AsyncHTTPClient
import Foundation
import NIOHTTP1
import ParleyCore
import ParleyTestServers
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain chat completions relayed on the connection's event loop once the endpoint has relayed
/// one for the same model, against a real HTTP server on 127.0.0.1 that speaks OpenAI's wire
/// format; and what must still take the usual way.
@Suite("chat completions relayed on the event loop")
struct EventLoopRelayTests {
    static let question = #"{"model": "openai/up-model", "messages": [{"role": "user", "content": "Capital of France?"}], "max_tokens": 9}"#

    static func relays(_ metrics: String, lane: String) -> Int {
        let prefix = #"parley_chat_relays_total{lane=""# + lane + #""} "#
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    @Test("after the first, the same plain request is relayed on the event loop: the same bytes, headers and counts")
    func repeated() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        let server = try await RelayTests.server(before: upstream)
        defer { server.stop() }
        for _ in 1...3 {
            let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(Self.question.utf8))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.text == RelayTests.whole)
            #expect(reply.headers["x-parley-provider"] == "openai" && reply.headers["x-parley-model"] == "up-model")
            #expect(reply.headers["content-type"] == "application/json" && reply.headers["date"]?.hasSuffix(" GMT") == true)
        }
        let sent = await upstream.requests.filter { $0.path.hasSuffix("/chat/completions") }
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { String(decoding: $0.body, as: UTF8.self) == Self.question.replacingOccurrences(of: "openai/up-model", with: "up-model") })
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(Self.relays(metrics, lane: "task") == 1, "\(metrics)")
        #expect(Self.relays(metrics, lane: "event_loop") == 2, "\(metrics)")
        #expect(metrics.contains(#"parley_http_requests_total{route="/v1/chat/completions",method="POST",status="200"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"parley_tokens_total{provider="openai (up-model)",kind="input"} 36"#), "\(metrics)")
        #expect(metrics.contains(#"parley_provider_requests_total{capability="LLM",provider="openai (up-model)"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"parley_http_request_duration_seconds_count{route="/v1/chat/completions",method="POST",status="200"} 3"#), "\(metrics)")
    }

    @Test("instructions alone are relayed as OpenAI takes them, by the endpoint and then on the event loop")
    func instructionsOnly() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        let server = try await RelayTests.server(before: upstream)
        defer { server.stop() }
        let body = #"{"model": "openai/up-model", "messages": [{"role": "system", "content": "Greet the user, Ada, by name."}]}"#
        for _ in 1...2 {
            let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
            #expect(reply.status == 200 && reply.text == RelayTests.whole, "\(reply.text)")
        }
        let sent = await upstream.requests.filter { $0.path.hasSuffix("/chat/completions") }
        #expect(
            sent.count == 2
                && sent.allSatisfy { String(decoding: $0.body, as: UTF8.self) == body.replacingOccurrences(of: "openai/up-model", with: "up-model") })
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(Self.relays(metrics, lane: "task") == 1 && Self.relays(metrics, lane: "event_loop") == 1, "\(metrics)")
    }

    @Test("what the relay must not answer takes the usual way: a wrong key, a body that does not decode, a stream")
    func usualWay() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        let server = try await TestServer.start(
            settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1", "PARLEY_API_KEYS": "key-one"],
            catalog: RelayTests.catalog())
        defer { server.stop() }
        let authorized = [("content-type", "application/json"), ("authorization", "Bearer key-one")]
        let first = try await server.send(.POST, "/v1/chat/completions", headers: authorized, body: Data(Self.question.utf8))
        #expect(first.status == 200, "\(first.text)")
        let wrongKey = try await server.send(
            .POST, "/v1/chat/completions", headers: [("content-type", "application/json"), ("authorization", "Bearer key-two")],
            body: Data(Self.question.utf8))
        #expect(wrongKey.status == 401 && wrongKey.error?["code"] as? String == "invalid_api_key", "\(wrongKey.text)")
        let noKey = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(Self.question.utf8))
        #expect(noKey.status == 401)
        let broken = try await server.send(.POST, "/v1/chat/completions", headers: authorized, body: Data(#"{"model": "openai/up-model", "messages": 3}"#.utf8))
        #expect(broken.status == 400 && broken.error?["param"] as? String == "messages", "\(broken.text)")
        let unknown = try await server.send(
            .POST, "/v1/chat/completions", headers: authorized,
            body: Data(#"{"model": "openai/up-model", "messages": [], "temprature": 1}"#.utf8))
        #expect(unknown.status == 400, "\(unknown.text)")
        let streamed = try await server.send(
            .POST, "/v1/chat/completions", headers: authorized,
            body: try JSONSerialization.data(withJSONObject: RelayTests.streamedQuestion))
        #expect(streamed.status == 200 && streamed.text == RelayTests.events.joined())
        // At temperature 0 the response cache answers the second time (the relay must not).
        let steady = Data(Self.question.replacingOccurrences(of: #""max_tokens": 9"#, with: #""max_tokens": 9, "temperature": 0"#).utf8)
        let once = try await server.send(.POST, "/v1/chat/completions", headers: authorized, body: steady)
        let again = try await server.send(.POST, "/v1/chat/completions", headers: authorized, body: steady)
        #expect(once.status == 200 && once.headers["x-parley-cache"] == "miss", "\(once.headers)")
        #expect(again.status == 200 && again.headers["x-parley-cache"] == "hit" && again.text.contains("Paris."), "\(again.headers)")
        let metrics = try await server.send(.GET, "/metrics", headers: [("authorization", "Bearer key-one")]).text
        #expect(Self.relays(metrics, lane: "event_loop") == 0, "\(metrics)")
        #expect(await upstream.requests.filter { $0.path.hasSuffix("/chat/completions") }.count == 3)
    }

    @Test("when the provider fails after a relay on the event loop, the request takes the usual way and the chain falls back on-device")
    func fallsBack() async throws {
        let failing = Mutex(false)
        let upstream = try await ScriptedServer.start { request in
            guard request.path.hasSuffix("/chat/completions") else { return .json(200, #"{"object":"list","data":[]}"#) }
            return failing.withLock { $0 } ? .json(503, #"{"error":{"message":"overloaded","type":"server_error"}}"#) : .json(200, RelayTests.whole)
        }
        defer { upstream.stop() }
        let server = try await RelayTests.server(before: upstream)
        defer { server.stop() }
        let question = #"{"model": "auto", "messages": [{"role": "user", "content": "Capital of France?"}]}"#
        for _ in 1...2 {
            let relayed = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(question.utf8))
            #expect(relayed.status == 200 && relayed.text == RelayTests.whole, "\(relayed.text)")
        }
        failing.withLock { $0 = true }
        let fallback = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(question.utf8))
        #expect(fallback.status == 200, "\(fallback.text)")
        #expect(fallback.headers["x-parley-provider"] == "scripted")
        // The failing provider was asked by the event loop and then by the endpoint, once each.
        #expect(await upstream.requests.filter { $0.path.hasSuffix("/chat/completions") }.count == 4)
        // Once the chain has marked the provider down, the event loop leaves it alone too.
        let again = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(question.utf8))
        #expect(again.headers["x-parley-provider"] == "scripted")
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(Self.relays(metrics, lane: "event_loop") == 1, "\(metrics)")
    }

    @Test("a graceful shutdown lets a request relayed on the event loop finish")
    func gracefulShutdown() async throws {
        let gate = Gate()
        let asked = Mutex(0)
        let upstream = try await ScriptedServer.start { request in
            guard request.path.hasSuffix("/chat/completions") else { return .json(200, #"{"object":"list","data":[]}"#) }
            let count = asked.withLock { count in
                count += 1
                return count
            }
            // The second answer waits until the shutdown has begun.
            return ScriptedReply(contentType: "application/json", steps: (count == 2 ? [.wait(gate)] : []) + [.write(Data(RelayTests.whole.utf8))])
        }
        defer { upstream.stop() }
        let server = try await TestServer.start(
            settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1"], catalog: RelayTests.catalog(),
            gracefulShutdown: true)
        defer { server.stop() }
        let first = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(Self.question.utf8))
        #expect(first.status == 200)
        let inFlight = Task {
            try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(Self.question.utf8))
        }
        while asked.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        let shutdown = Task { try await server.shutDownGracefully() }
        try await Task.sleep(for: .milliseconds(200))
        await gate.open()
        let answer = try await inFlight.value
        #expect(answer.status == 200 && answer.text == RelayTests.whole, "\(answer.text)")
        try await shutdown.value
        // The server no longer listens.
        await #expect(throws: POSIXError.self) { _ = try await RawHTTP.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
    }

    @Test("a connection whose requests were all relayed on the event loop is still closed once idle")
    func idleTimeout() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        // Long enough that a loaded machine (the whole suite runs in parallel) still sends the
        // client's requests on the connections it opens; short beside the 18 s checked below.
        let server = try await TestServer.start(settings: ["OPENAI_BASE_URL": upstream.baseURL + "/v1"], catalog: RelayTests.catalog()) {
            $0.idleTimeout = .seconds(5)
        }
        defer { server.stop() }
        // On a loaded machine the client may open its connection and send nothing for longer
        // than the idle timeout: the server then rightly closes it, and the client asks again.
        func send(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> TestServer.Reply {
            for _ in 1..<3 {
                do {
                    return try await server.send(method, path, headers: [("content-type", "application/json")], body: body)
                } catch let error as HTTPClientError where error == .remoteConnectionClosed {
                    continue
                }
            }
            return try await server.send(method, path, headers: [("content-type", "application/json")], body: body)
        }
        let first = try await send(.POST, "/v1/chat/completions", body: Data(Self.question.utf8))
        #expect(first.status == 200)
        // A connection's first request goes to the router (the WebSocket upgrade is decided on
        // it); the second is relayed on the event loop.
        let request =
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(Self.question.utf8.count)\r\n\r\n"
            + Self.question
        let start = ContinuousClock.now
        // Read until the server closes the connection (the client gives up after 20 s).
        let text = try await RawHTTP.exchange(port: server.port, request)
        #expect(text.hasPrefix("HTTP/1.1 200") && text.hasSuffix(RelayTests.whole), "\(text)")
        // Closed by the server, not by the client giving up at 20 s (however loaded the machine).
        #expect(ContinuousClock.now - start < .seconds(18))
        let metrics = try await send(.GET, "/metrics").text
        #expect(Self.relays(metrics, lane: "event_loop") == 1, "\(metrics)")
        // A connection that never sends a request is closed once idle too.
        let silentStart = ContinuousClock.now
        let silent = try await RawHTTP.exchange(port: server.port, "")
        #expect(silent.isEmpty && ContinuousClock.now - silentStart < .seconds(18), "\(silent)")
    }

    @Test("requests pipelined on one connection are answered in order, relayed on the event loop or not")
    func pipelined() async throws {
        let upstream = try await RelayTests.upstream()
        defer { upstream.stop() }
        let server = try await RelayTests.server(before: upstream)
        defer { server.stop() }
        let first = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(Self.question.utf8))
        #expect(first.status == 200)
        func chat(_ extra: String = "") -> String {
            "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(Self.question.utf8.count)\r\n\r\n"
                + Self.question
        }
        let health = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let missing = "GET /v1/no-such-thing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let text = try await RawHTTP.exchange(port: server.port, chat() + health + chat() + chat() + missing + chat("Connection: close\r\n"))
        let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["200", "200", "200", "200", "404", "200"], "\(text)")
        let bodies = text.components(separatedBy: "\r\n\r\n")
        #expect(bodies.filter { $0.hasPrefix(RelayTests.whole) }.count == 4, "\(text)")
        #expect(bodies[2].hasPrefix("{") && bodies[2].contains("\"status\""), "the health answer second: \(text)")
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(Self.relays(metrics, lane: "event_loop") >= 1, "\(metrics)")
    }
}

/// Requests written by hand on one socket, read until the server closes it.
enum RawHTTP {
    static func exchange(port: Int, _ requests: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blocking(port: port, requests) })
            }
        }
    }

    private static func blocking(port: Int, _ requests: String) throws -> String {
        let descriptor = try LoopbackSocket.connected(to: port)
        defer { close(descriptor) }
        let bytes = Array(requests.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
