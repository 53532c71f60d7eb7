import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A real HTTP server on 127.0.0.1 (an OS-assigned port) that answers each request with a
/// ``ScriptedReply``: pauses before the head or between writes, writes split where a test
/// wants, a proper end, a cut connection, or a hold until the client leaves. It records the
/// requests and reports to a ``StreamObserver`` which streams the client read to the end
/// and which it abandoned.
public final class ScriptedServer: Sendable {
    /// Answers a request.
    public typealias Handler = @Sendable (WireServer.Recorded) async -> ScriptedReply

    /// The port the server listens on.
    public let port: Int
    /// What the server saw: requests, and streamed responses read to the end or abandoned.
    public let observer: StreamObserver
    private let task: Task<Void, any Error>
    private let log: RequestLog

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request so far, in order of arrival.
    public var requests: [WireServer.Recorded] { get async { await log.requests } }

    /// Starts a server; returns once it accepts connections.
    public static func start(_ handler: @escaping Handler) async throws -> ScriptedServer {
        let log = RequestLog()
        let observer = StreamObserver()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let recorded = try await Loopback.record(request)
            await log.record(recorded)
            await observer.noteRequest()
            let reply = await handler(recorded)
            if let delay = reply.headDelay { try await Task.sleep(for: delay) }
            return response(reply, observer: observer)
        }
        let (task, port) = try await Loopback.run { onServerRunning in
            Application(
                responder: responder, configuration: Loopback.configuration, onServerRunning: onServerRunning,
                logger: Loopback.quietLogger("parley.scripted-server"))
        }
        return ScriptedServer(port: port, observer: observer, task: task, log: log)
    }

    private init(port: Int, observer: StreamObserver, task: Task<Void, any Error>, log: RequestLog) {
        self.port = port
        self.observer = observer
        self.task = task
        self.log = log
    }

    /// Stops the server. A test whose client gave up early (a short timeout) should first
    /// await `observer.wait(for: .requests)`: a connection the server accepts while it stops
    /// trips a debug-build precondition in SwiftNIO ("Deinited NIOAsyncWriter without calling
    /// finish()").
    public func stop() {
        task.cancel()
    }

    private static func response(_ reply: ScriptedReply, observer: StreamObserver) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = reply.contentType
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        let body = ResponseBody { writer in
            do {
                for step in reply.steps {
                    switch step {
                    case .write(let data): try await writer.write(ByteBuffer(bytes: data))
                    case .pause(let duration): try await Task.sleep(for: duration)
                    case .wait(let gate): await gate.pass()
                    }
                }
                switch reply.ending {
                case .finish:
                    try await writer.finish(nil)
                    await observer.noteCompleted()
                    return
                case .cut:
                    break
                case .hold(let keepAlive, let interval):
                    while true {
                        try await Task.sleep(for: interval)
                        try await writer.write(ByteBuffer(bytes: keepAlive))
                    }
                }
            } catch {
                await observer.noteAbandoned()
                throw error
            }
            throw CutConnection()
        }
        return Response(status: .init(code: reply.status), headers: fields, body: body)
    }

    /// Thrown from the body writer to make the server drop the connection mid-body.
    private struct CutConnection: Error {}
}
