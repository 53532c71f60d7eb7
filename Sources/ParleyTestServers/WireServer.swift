import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A real HTTP server on 127.0.0.1 (an OS-assigned port) that answers each request with
/// what a test scripts, speaking a provider's documented wire format. It records every request
/// and notices when a client goes away in the middle of a streamed response.
public final class WireServer: Sendable {
    /// A request as the server received it.
    public struct Recorded: Sendable {
        public var method: String
        public var path: String
        public var query: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: Data

        /// The body parsed as a JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        }
    }

    /// What the server sends back.
    public enum Reply: Sendable {
        /// A whole body.
        case body(status: Int, contentType: String, Data, headers: [String: String] = [:])
        /// A streamed body, written chunk by chunk (each flushed on its own), then one of the endings.
        case stream(status: Int = 200, contentType: String, chunks: [Data], ending: Ending = .complete, headers: [String: String] = [:])

        /// A JSON body.
        public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Reply {
            .body(status: status, contentType: "application/json", Data(text.utf8), headers: headers)
        }
    }

    /// How a streamed body ends.
    public enum Ending: Sendable {
        /// Properly.
        case complete
        /// The connection is dropped without finishing the body, a moment after the last chunk:
        /// an HTTP client may drop body parts it has read but not yet handed over when the
        /// connection fails in the same read (AsyncHTTPClient does), so the pause lets what was
        /// sent reach the caller before the cut, as it would from a server far away.
        case cut
        /// Nothing more is sent until the client goes away (checked by writing `keepAlive`
        /// every `interval` if given, else by silence).
        case stall(keepAlive: Data?, interval: Duration = .milliseconds(20))
    }

    /// Answers a request.
    public typealias Handler = @Sendable (Recorded) async -> Reply

    private let task: Task<Void, any Error>
    /// The port the server listens on.
    public let port: Int

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server; returns once it accepts connections.
    public static func start(_ handler: @escaping Handler) async throws -> WireServer {
        let log = RequestLog()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let recorded = try await Loopback.record(request)
            await log.record(recorded)
            return Self.response(await handler(recorded), log: log)
        }
        let (task, port) = try await Loopback.run { onServerRunning in
            Application(
                responder: responder, configuration: Loopback.configuration, onServerRunning: onServerRunning,
                logger: Loopback.quietLogger("parley.wire-server"))
        }
        return WireServer(task: task, port: port, log: log)
    }

    private init(task: Task<Void, any Error>, port: Int, log: RequestLog) {
        self.task = task
        self.port = port
        self.logStore = log
    }

    private let logStore: RequestLog

    /// Every request so far.
    public var requests: [Recorded] { get async { await logStore.requests } }

    /// How many streamed responses the client abandoned before they ended.
    public var abandonedStreams: Int { get async { await logStore.abandoned } }

    /// Waits (yielding, bounded) until a client has abandoned `count` streams; returns whether it did.
    public func waitForAbandonedStreams(_ count: Int = 1) async -> Bool {
        for _ in 0..<2_000 {
            if await logStore.abandoned >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Stops the server.
    public func stop() {
        task.cancel()
    }

    private static func response(_ reply: Reply, log: RequestLog) -> Response {
        switch reply {
        case .body(let status, let contentType, let data, let extra):
            return Response(status: .init(code: status), headers: fields(contentType, extra), body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .stream(let status, let contentType, let chunks, let ending, let extra):
            let body = ResponseBody { writer in
                do {
                    for chunk in chunks {
                        try await writer.write(ByteBuffer(bytes: chunk))
                        try await Task.sleep(for: .milliseconds(2))  // let each chunk leave on its own
                    }
                    switch ending {
                    case .complete:
                        try await writer.finish(nil)
                    case .cut:
                        try await Task.sleep(for: .milliseconds(250))
                        throw CutStream()
                    case .stall(let keepAlive, let interval):
                        while true {
                            try await Task.sleep(for: interval)
                            if let keepAlive { try await writer.write(ByteBuffer(bytes: keepAlive)) }
                        }
                    }
                } catch is CutStream {
                    throw CutStream()
                } catch {
                    await log.noteAbandoned()
                    throw error
                }
            }
            return Response(status: .init(code: status), headers: fields(contentType, extra), body: body)
        }
    }

    private static func fields(_ contentType: String, _ extra: [String: String]) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        for (name, value) in extra {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return fields
    }

    private struct CutStream: Error {}
}

/// The server's record of requests and abandoned streams.
actor RequestLog {
    private(set) var requests: [WireServer.Recorded] = []
    private(set) var abandoned = 0

    func record(_ request: WireServer.Recorded) { requests.append(request) }
    func noteAbandoned() { abandoned += 1 }
}
