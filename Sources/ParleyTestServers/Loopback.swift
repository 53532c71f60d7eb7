import Foundation
import Hummingbird
import Logging
import NIOCore

/// What the test servers share: starting a Hummingbird application on a free port of
/// 127.0.0.1, and recording the requests it receives.
enum Loopback {
    /// 127.0.0.1, at a port the system picks.
    static let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0))

    /// A logger that keeps a test server quiet.
    static func quietLogger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }

    /// Runs the application `make` builds (handing it the callback that reports the port) and
    /// returns its task and port once it accepts connections.
    static func run<App: ApplicationProtocol>(
        _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> App
    ) async throws -> (task: Task<Void, any Error>, port: Int) {
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = make { channel in
            portSink.yield(channel.localAddress?.port ?? 0)
            portSink.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return (task, port)
    }

    /// A request as the servers record it.
    static func record(_ request: Request) async throws -> WireServer.Recorded {
        let body = try await request.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        return WireServer.Recorded(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
            headers: headers, body: Data(body.readableBytesView))
    }
}
