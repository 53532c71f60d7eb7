import Foundation
import ParleyCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a hostile client sends must never end the server (issue 42): numbers out of any range
/// get a 400 (HTTP) or an `error` event (realtime) naming the field, and the server answers the
/// next request; a foreign `Origin` or a rebinding `Host` gets a 403; a connection that asks
/// for an upgrade the server does not speak and then says nothing is closed by the idle timeout.
/// `scripts/hostile_client.py` runs the same attacks, and many more, against a `parley serve`.
@Suite("hostile clients: nothing a client sends ends the server")
struct HostileClientTests {
    static let json = [("content-type", "application/json")]

    // MARK: - realtime

    /// The two messages of issue 42 that ended the process (`Int(Double)` on a client's
    /// number), and their kin: each gets an `error` event naming the field, the session goes on,
    /// and the server answers the next request.
    @Test(
        "realtime numbers beyond any range get an error event, and the session and server live on",
        arguments: [
            (#"{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":1e19}}}}}"#, "session.audio.input.format.rate"),
            (#"{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":-1e19}}}}}"#, "session.audio.input.format.rate"),
            (
                #"{"type":"session.update","session":{"audio":{"output":{"format":{"type":"audio/pcm","rate":18446744073709551616}}}}}"#,
                "session.audio.output.format.rate"
            ),
            (
                #"{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":9223372036854775808}}}}}"#,
                "session.audio.input.format.rate"
            ),
            (#"{"type":"conversation.item.truncate","item_id":"item_1","content_index":0,"audio_end_ms":1e19}"#, "audio_end_ms"),
            (#"{"type":"conversation.item.truncate","item_id":"item_1","content_index":0,"audio_end_ms":9223372036854775808}"#, "audio_end_ms"),
            (#"{"type":"conversation.item.truncate","item_id":"item_1","content_index":0,"audio_end_ms":1e308}"#, "audio_end_ms"),
        ])
    func realtimeExtremeNumbers(frame: String, param: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.sendText(frame)
            let error = try await client.next("error", within: 10)
            let body = error["error"] as? [String: Any]
            #expect(body?["type"] as? String == "invalid_request_error", "\(error)")
            #expect(body?["param"] as? String == param, "\(error)")
            // The session goes on: the next event is answered.
            try await client.send(["type": "session.update", "session": ["instructions": "Still here."]])
            let updated = try await client.next("session.updated", within: 10)
            #expect((updated["session"] as? [String: Any])?["instructions"] as? String == "Still here.")
        }
        #expect(try await server.send(.GET, "/health").status == 200)
        #expect(try await server.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "Hi"]]]).status == 200)
    }

    /// Numbers out of range in every other realtime field that takes one: an error event, never
    /// a trap, and never a closed session.
    @Test(
        "realtime numbers out of range in other fields get an error event",
        arguments: [
            #"{"type":"session.update","session":{"audio":{"input":{"turn_detection":{"type":"server_vad","silence_duration_ms":1e19}}}}}"#,
            #"{"type":"session.update","session":{"audio":{"input":{"turn_detection":{"type":"server_vad","prefix_padding_ms":-1e19}}}}}"#,
            #"{"type":"session.update","session":{"max_output_tokens":1e19}}"#,
            #"{"type":"session.update","session":{"max_response_output_tokens":18446744073709551616}}"#,
            #"{"type":"session.update","session":{"parley":{"partial_transcript_interval_ms":1e308}}}"#,
            #"{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":"NaN"}}}}}"#,
            #"{"type":"conversation.item.truncate","item_id":"item_1","content_index":0,"audio_end_ms":"NaN"}"#,
            #"{"type":"conversation.item.truncate","item_id":"item_1","content_index":0,"audio_end_ms":-1e19}"#,
        ])
    func realtimeOtherNumbers(frame: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.sendText(frame)
            let error = try await client.next("error", within: 10)
            #expect((error["error"] as? [String: Any])?["type"] as? String == "invalid_request_error", "\(error)")
            try await client.send(["type": "conversation.item.retrieve", "item_id": "item_missing"])
            try await client.next("error", within: 10)
        }
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    // MARK: - HTTP

    /// Extreme numbers in JSON bodies: a 400 in OpenAI's shape, and the server answers the next
    /// request.
    @Test(
        "HTTP numbers beyond any range get a 400",
        arguments: [
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":1e19}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":18446744073709551616}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":-1e19}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"temperature":1e308}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"top_p":-0.0}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"temperature":"NaN"}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"seed":1e19}"#),
            ("/v1/chat/completions", #"{"messages":[{"role":"user","content":"Hi"}],"n":9223372036854775808}"#),
            ("/v1/responses", #"{"input":"Hi","max_output_tokens":1e19}"#),
            ("/v1/responses", #"{"input":"Hi","temperature":-1e19}"#),
            ("/v1/audio/speech", #"{"input":"Hi","speed":1e308}"#),
            ("/v1/audio/speech", #"{"input":"Hi","speed":"NaN"}"#),
            ("/v1/parley/compare", #"{"capability":"chat","prompt":"Hi","max_tokens":1e19}"#),
            ("/v1/threads", #"{"title":"t","settings":{"max_tokens":1e19}}"#),
            ("/v1/stash", #"{"text":"x","thread_id":18446744073709551616}"#),
            ("/v1/mindmaps", #"{"thread":1e19}"#),
            ("/v1/mindmaps", #"{"text":"cats","seed":18446744073709551616}"#),
        ])
    func httpExtremeNumbers(path: String, body: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.send(.POST, path, headers: Self.json, body: Data(body.utf8))
        expectOpenAIError(reply, status: 400)
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    @Test(
        "PUT /v1/settings/preferences with numbers beyond any range gets a 400",
        arguments: [
            #"{"silence_ms":1e19}"#, #"{"max_tokens":-9223372036854775809}"#, #"{"silence_ms":"NaN"}"#,
        ])
    func preferencesExtremeNumbers(body: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.send(.PUT, "/v1/settings/preferences", headers: Self.json, body: Data(body.utf8))
        expectOpenAIError(reply, status: 400)
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    /// A model name with nothing around its slash: `"/".split(separator: "/")` is empty, and
    /// `EmbeddingsEndpoint` read its first part (an index out of range ends the process).
    @Test("a model named only by slashes is not a crash", arguments: ["/", "//", "///"])
    func slashModelNames(model: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.post("/v1/embeddings", json: ["model": model, "input": "hello"])
        // The name selects no provider: the on-device model answers where setup installed it, a
        // 503 says none is set up where it did not; never a trap.
        #expect(reply.status == 200 || (400..<500).contains(reply.status) || reply.status == 503, "\(reply.status) \(reply.text.prefix(300))")
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    @Test(
        "ids beyond Int64 in paths get a 4xx, not a 5xx",
        arguments: [
            "/v1/threads/99999999999999999999", "/v1/threads/-9223372036854775809", "/v1/threads/1e19",
            "/v1/responses/resp_99999999999999999999_0", "/v1/responses/resp_1_99999999999999999999", "/v1/materials/99999999999999999999",
        ])
    func hugeIDs(path: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.send(.GET, path)
        #expect((400..<500).contains(reply.status), "\(reply.status) \(reply.text)")
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    // MARK: - Origin, Host, idle connections (the fixes of issue 42)

    // A WebSocket from a foreign origin: TrustTests.webSocket.

    @Test("an HTTP request from a foreign Origin or with a rebinding Host gets a 403; curl's and the page's do not")
    func foreignOriginAndHost() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let port = server.port
        let foreign = try await HostileSocket.status(port: port, "GET /v1/threads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: https://evil.example\r\n\r\n")
        #expect(foreign == 403)
        let rebinding = try await HostileSocket.status(port: port, "GET /v1/threads HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n")
        #expect(rebinding == 403)
        let body = #"{"messages":[{"role":"user","content":"Hi"}],"max_tokens":2}"#
        let relayed = try await HostileSocket.status(
            port: port,
            "POST /v1/chat/completions HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(relayed == 403, "the event-loop relay must refuse a rebinding Host too")
        let curl = try await HostileSocket.status(port: port, "GET /v1/threads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(curl == 200)
        let page = try await HostileSocket.status(port: port, "GET /v1/threads HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://localhost:\(port)\r\n\r\n")
        #expect(page == 200)
    }

    @Test("a connection that asks for Upgrade: h2c and then says nothing is closed by the idle timeout")
    func upgradeThenSilence() async throws {
        let server = try await TestServer.scripted { $0.idleTimeout = .seconds(1) }
        defer { server.stop() }
        let request =
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"
        let closedAfter = try await HostileSocket.secondsUntilClosed(port: server.port, request, atMost: 10)
        #expect(closedAfter != nil && closedAfter! < 6, "still open after 10 s (idle timeout 1 s)")
        #expect(try await server.send(.GET, "/health").status == 200)
    }
}

/// Requests written by hand over a blocking loopback socket (on a dispatch queue, so that a
/// blocked thread never starves the server's pool): headers no HTTP client would send.
enum HostileSocket {
    /// Sends `request` and returns the answer's status (0 for none).
    static func status(port: Int, _ request: String) async throws -> Int {
        try await blocking {
            let descriptor = try LoopbackSocket.connected(to: port)
            defer { close(descriptor) }
            transmit(descriptor, request)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !String(decoding: received, as: UTF8.self).contains("\r\n") {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let line = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n")[0]
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
    }

    /// Sends `request`, reads whatever comes back, and returns how many seconds passed until
    /// the server closed the connection (`nil`: still open after `atMost`).
    static func secondsUntilClosed(port: Int, _ request: String, atMost: Double) async throws -> Double? {
        try await blocking {
            let descriptor = try LoopbackSocket.connected(to: port)
            defer { close(descriptor) }
            var timeout = timeval(tv_sec: 0, tv_usec: 250_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let start = Date()
            transmit(descriptor, request)
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while Date().timeIntervalSince(start) < atMost {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count == 0 { return Date().timeIntervalSince(start) }
                if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return Date().timeIntervalSince(start) }
            }
            return nil
        }
    }

    private static func transmit(_ descriptor: Int32, _ request: String) {
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

extension OnDeviceServerTests {
    /// Hostile uploads that reach the on-device speech engine (whisper.cpp): found by
    /// `scripts/hostile_client.py` against `parley serve`.
    @Suite("hostile clients: uploads that reach the on-device speech engine")
    struct HostileClientTestsOnDevice {
        static func transcribe(_ wav: Data, fields: [(String, String)], server: TestServer) async throws -> TestServer.Reply {
            var form = FormBody()
            for (name, value) in fields { form.add(name, value) }
            form.add(file: "file", filename: "a.wav", wav)
            return try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
        }

        /// A 100 KB prompt of one word ended the process with SIGSEGV inside whisper.cpp (its
        /// tokenizer); 10 KB, or 100 KB of short words, did not.
        @Test("a transcription prompt of one 100 KB word is refused or ignored, not a crash")
        func longPrompt() async throws {
            let server = try await TestServer.onDevice.value
            let wav = WAV.encode(AudioBuffer(samples: [Float](repeating: 0, count: 16_000), sampleRate: 16_000))
            let reply = try await Self.transcribe(wav, fields: [("model", "whisper-1"), ("prompt", String(repeating: "x", count: 100_000))], server: server)
            #expect((200..<500).contains(reply.status), "\(reply.status) \(reply.text)")
            #expect(try await server.send(.GET, "/health").status == 200)
        }

        /// A float WAV of NaN and infinities held the request past a minute (no answer): whisper.cpp
        /// decodes garbage to its limits on a thread of Swift's cooperative pool, and two such
        /// uploads on two cores stopped `/health` answering.
        @Test("a float WAV of NaN and infinities is answered within 30 s")
        func nonFiniteSamples() async throws {
            let server = try await TestServer.onDevice.value
            var data = Data("RIFF".utf8)
            // What scripts/hostile_client.py sends: NaN, +∞, -∞ and 1e38, over and over (1 s at 16 kHz).
            let samples = (0..<4_000).flatMap { _ in [Float.nan, .infinity, -.infinity, 1e38] }
            let payload = samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
            func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            data +=
                le32(UInt32(36 + payload.count)) + Array("WAVEfmt ".utf8) + le32(16) + le16(3) + le16(1) + le32(16_000) + le32(64_000)
                + le16(4) + le16(32) + Array("data".utf8) + le32(UInt32(payload.count)) + payload
            let started = ContinuousClock.now
            let reply = try await Self.transcribe(data, fields: [("model", "whisper-1")], server: server)
            #expect(ContinuousClock.now - started < .seconds(30), "answered after \(ContinuousClock.now - started)")
            #expect((200..<500).contains(reply.status), "\(reply.status) \(reply.text)")
        }
    }
}
