import Foundation
import HTTPTypes
import Logging
import NIOCore
import ParleyCore
import Synchronization
import Testing
import WSClient

/// A realtime client for tests: connects to `/v1/realtime`, sends events, and keeps every
/// event the server sends, in order, for the test to wait on.
final class RealtimeTestClient: Sendable {
    /// What the server sent so far (each a JSON object, as text).
    actor Received {
        var frames: [String] = []
        var closed = false
        func add(_ frame: String) { frames.append(frame) }
        func close() { closed = true }
    }

    let outbound: WebSocketOutboundWriter
    let received: Received
    private let cursor = Mutex(0)

    init(outbound: WebSocketOutboundWriter, received: Received) {
        self.outbound = outbound
        self.received = received
    }

    /// Connects to `server` (query `query`, extra `headers`) and runs `body` with a client;
    /// the connection closes when `body` returns.
    static func with(
        _ server: TestServer, query: String = "", headers: HTTPFields = [:],
        _ body: @escaping @Sendable (RealtimeTestClient) async throws -> Void
    ) async throws {
        try await with(port: server.port, query: query, headers: headers, body)
    }

    /// Connects to a server on `port` of 127.0.0.1.
    static func with(
        port: Int, query: String = "", headers: HTTPFields = [:],
        _ body: @escaping @Sendable (RealtimeTestClient) async throws -> Void
    ) async throws {
        var logger = Logger(label: "parley.test-realtime")
        logger.logLevel = .critical
        let received = Received()
        _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/v1/realtime\(query.isEmpty ? "" : "?" + query)",
            configuration: .init(maxFrameSize: 16 << 20, additionalHeaders: headers), logger: logger
        ) { inbound, outbound, _ in
            let client = RealtimeTestClient(outbound: outbound, received: received)
            let reader = Task {
                do {
                    for try await message in inbound.messages(maxSize: 16 << 20) {
                        if case .text(let text) = message { await received.add(text) }
                    }
                } catch {}
                await received.close()
            }
            do {
                try await body(client)
            } catch {
                reader.cancel()
                throw error
            }
            if await !received.closed { try? await outbound.close(.normalClosure, reason: nil) }
            _ = await reader.value
        }
    }

    /// Sends an event.
    func send(_ event: [String: Any]) async throws {
        try await sendText(String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self))
    }

    /// Sends a raw text frame.
    func sendText(_ text: String) async throws {
        try await outbound.write(.text(text))
    }

    /// Sends `audio` as `input_audio_buffer.append` events of 100 ms at `rate`; `paced`, one
    /// every 100 ms, as a microphone would.
    func append(_ audio: AudioBuffer, rate: Int = 24_000, paced: Bool = false) async throws {
        let samples = audio.resampled(to: rate).samples
        for start in stride(from: 0, to: samples.count, by: rate / 10) {
            if paced, start > 0 { try await Task.sleep(for: .milliseconds(100)) }
            let bytes = Data(PCM16.encode(Array(samples[start..<min(samples.count, start + rate / 10)])))
            try await send(["type": "input_audio_buffer.append", "audio": bytes.base64EncodedString()])
        }
    }

    /// Every event received so far.
    func all() async -> [[String: Any]] {
        await received.frames.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// Waits for the next event of `type` after the last one waited for, and returns it.
    @discardableResult
    func next(_ type: String, within seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let events = await all()
            let start = cursor.withLock { $0 }
            if let index = events.indices.dropFirst(start).first(where: { events[$0]["type"] as? String == type }) {
                cursor.withLock { $0 = index + 1 }
                return events[index]
            }
            if await received.closed { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let seen = await all().compactMap { $0["type"] as? String }
        Issue.record("no \(type) event within \(seconds) s; received: \(seen)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits until the server closes the connection.
    func waitForClose(within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await received.closed { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the server did not close the connection within \(seconds) s", sourceLocation: sourceLocation)
    }

    /// The types of every event received so far.
    func types() async -> [String] {
        await all().compactMap { $0["type"] as? String }
    }
}

extension AudioBuffer {
    /// `self` followed by `seconds` of silence.
    func followed(bySilence seconds: Double) -> AudioBuffer {
        AudioBuffer(samples: samples + [Float](repeating: 0, count: Int(seconds * Double(sampleRate))), sampleRate: sampleRate)
    }
}
