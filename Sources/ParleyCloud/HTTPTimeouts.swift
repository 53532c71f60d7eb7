import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// How long an HTTP provider waits.
public struct HTTPTimeouts: Sendable, Hashable {
    /// To open the connection.
    public var connect: Duration
    /// From sending the request to the response head.
    public var firstByte: Duration
    /// Between two chunks of a streamed body.
    public var idle: Duration

    /// For availability probes: a server that does not answer at once is not available.
    public static let probe = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(3), idle: .seconds(3))

    /// Creates timeouts; the defaults suit interactive use.
    public init(connect: Duration = .seconds(10), firstByte: Duration = .seconds(30), idle: Duration = .seconds(30)) {
        self.connect = connect
        self.firstByte = firstByte
        self.idle = idle
    }
}

extension Duration {
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Process-wide HTTP clients, one per connect/idle timeout pair (AsyncHTTPClient sets those
/// per client). They live as long as the process, like `HTTPClient.shared`. A refused
/// connection fails at once rather than being retried until the request's deadline.
public enum HTTPClients {
    private static let clients = Mutex<[HTTPTimeouts: HTTPClient]>([:])

    /// The client for `timeouts`, made on first use.
    public static func client(for timeouts: HTTPTimeouts) -> HTTPClient {
        var key = timeouts
        key.firstByte = max(timeouts.idle, timeouts.firstByte)  // only the backstop depends on it
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            // The idle gap between body chunks is enforced per stream (HTTPCall.chunks), and the
            // wait for the head per request: a client-wide read timeout would cap both at once.
            // It stays as a backstop for reads neither covers, at twice the larger of the two
            // (it has no grace: see `TimeoutGrace`).
            configuration.timeout = .init(
                connect: timeouts.connect.timeAmount,
                read: (max(timeouts.idle, timeouts.firstByte) * 2).timeAmount)
            configuration.decompression = .disabled
            // A refused connection fails at once: the fallback chain (and its retry policy)
            // decides what to do next, instead of the pool retrying until the deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}
