import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// A WebSocket server on 127.0.0.1 that speaks Deepgram's live transcription protocol, as its
/// documentation describes it: the client upgrades `/v1/listen?…` with `Authorization: Token
/// KEY`, sends audio as binary messages and `{"type":"CloseStream"}` at the end; the server
/// sends `Results` messages (`is_final` false for interim results) and closes.
public final class DeepgramLiveServer: Sendable {
    /// How the server behaves.
    public enum Script: Sendable {
        /// Each segment is announced by an interim result (its first word) and then a final
        /// one, one message per `bytesPerMessage` of audio received; what is left is sent
        /// after `CloseStream`.
        case transcribe(segments: [String], bytesPerMessage: Int)
        /// After the first audio, the server closes with this code and reason.
        case fail(closeCode: UInt16, reason: String)
    }

    /// What a client did in one session.
    public struct Session: Sendable, Equatable {
        /// The upgrade request's path and query.
        public var path: String
        public var query: String
        /// Its Authorization header.
        public var authorization: String?
        /// Bytes of audio received.
        public var audioBytes: Int
        /// Whether the client sent `CloseStream`.
        public var sentCloseStream: Bool
    }

    private actor Log {
        var sessions: [Session] = []
        func add(_ session: Session) { sessions.append(session) }
    }

    private let task: Task<Void, any Error>
    private let log: Log
    /// The port it listens on.
    public let port: Int
    /// The `https://`-style base URL to give a provider (the client turns it into `ws://`).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sessions that have ended.
    public var sessions: [Session] { get async { await log.sessions } }

    /// Starts a server; returns once it accepts connections.
    public static func start(_ script: Script) async throws -> DeepgramLiveServer {
        let log = Log()
        let (task, port) = try await Loopback.run { onServerRunning in
            Application(
                router: Router(),
                server: .http1WebSocketUpgrade { request, _, _ in upgrade(request, script: script, log: log) },
                configuration: Loopback.configuration,
                onServerRunning: onServerRunning,
                logger: Loopback.quietLogger("parley.deepgram-live-server"))
        }
        return DeepgramLiveServer(task: task, port: port, log: log)
    }

    /// Accepts `/v1/listen` and plays `script` on the session.
    private static func upgrade(
        _ request: HTTPRequest, script: Script, log: Log
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard request.path?.hasPrefix("/v1/listen") == true else { return .dontUpgrade }
        let target = request.path ?? ""
        let path = String(target.prefix { $0 != "?" })
        let query = target.contains("?") ? String(target.drop { $0 != "?" }.dropFirst()) : ""
        let authorization = request.headerFields[.authorization]
        return .upgrade([:]) { inbound, outbound, _ in
            var session = Session(path: path, query: query, authorization: authorization, audioBytes: 0, sentCloseStream: false)
            defer { Task { [session] in await log.add(session) } }
            var queue: [String] = []
            var bytesPerMessage = Int.max
            switch script {
            case .transcribe(let segments, let every):
                bytesPerMessage = every
                for segment in segments {
                    let first = segment.split(separator: " ").first.map(String.init) ?? segment
                    queue.append(Self.results(first, isFinal: false))
                    queue.append(Self.results(segment, isFinal: true))
                }
            case .fail:
                break
            }
            var sinceLast = 0
            for try await message in inbound.messages(maxSize: 1 << 22) {
                switch message {
                case .binary(let buffer):
                    session.audioBytes += buffer.readableBytes
                    sinceLast += buffer.readableBytes
                    if case .fail(let code, let reason) = script {
                        try await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                        return
                    }
                    while sinceLast >= bytesPerMessage, !queue.isEmpty {
                        sinceLast -= bytesPerMessage
                        try await outbound.write(.text(queue.removeFirst()))
                    }
                case .text(let text):
                    guard text.contains("CloseStream") else { continue }
                    session.sentCloseStream = true
                    for message in queue { try await outbound.write(.text(message)) }
                    try await outbound.write(.text(#"{"type":"Metadata","request_id":"test","duration":1.0,"channels":1}"#))
                    return  // leaving the handler closes the connection normally
                }
            }
        }
    }

    private init(task: Task<Void, any Error>, port: Int, log: Log) {
        self.task = task
        self.port = port
        self.log = log
    }

    /// Waits (bounded) until `count` sessions have ended.
    public func waitForSessions(_ count: Int) async -> [Session] {
        for _ in 0..<400 {
            let sessions = await log.sessions
            if sessions.count >= count { return sessions }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await log.sessions
    }

    /// Stops the server.
    public func stop() { task.cancel() }

    /// A `Results` message in Deepgram's shape.
    private static func results(_ transcript: String, isFinal: Bool) -> String {
        let escaped = transcript.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"type":"Results","channel_index":[0,1],"duration":0.5,"start":0.0,"is_final":\#(isFinal),"speech_final":\#(isFinal),"#
            + #""channel":{"alternatives":[{"transcript":"\#(escaped)","confidence":0.98,"words":[]}]}}"#
    }
}
