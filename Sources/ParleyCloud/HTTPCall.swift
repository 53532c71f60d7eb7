import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore
import Synchronization

/// One provider's way of sending requests: timeouts, error mapping, and body reading.
struct HTTPCall: Sendable {
    let provider: String
    let timeouts: HTTPTimeouts

    /// Sends `request`; returns the response if its status is 2xx, else throws the provider's
    /// error as an ``HTTPProviderError``.
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let response: HTTPClientResponse
        do {
            response = try await head(of: request)
        } catch {
            throw map(error)
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            let body = (try? await collect(response, limit: 64 * 1024)) ?? Data()
            throw HTTPProviderError.from(
                status: Int(response.status.code), body: body,
                retryAfter: response.headers.first(name: "retry-after"), provider: provider)
        }
        return response
    }

    /// Sends `request` and waits for the response head, at most ``HTTPTimeouts/firstByte``
    /// (confirmed by ``TimeoutGrace``). The client's own deadline, at twice the
    /// limit, is only a backstop: it has no grace.
    private func head(of request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let client = HTTPClients.client(for: timeouts)
        let limit = timeouts.firstByte
        return try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await client.execute(request, timeout: (limit * 2).timeAmount) }
            group.addTask {
                try await Task.sleep(for: limit)
                try await Task.sleep(for: TimeoutGrace.after(limit))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw HTTPProviderError(provider: provider, kind: .timeout(.firstByte), message: "no response head within \(limit)")
            }
            return response
        }
    }

    /// Sends `request` and returns its whole body.
    func data(_ request: HTTPClientRequest, limit: Int = 64 * 1024 * 1024) async throws -> Data {
        try await collect(send(request), limit: limit)
    }

    /// Sends `request` and decodes its JSON body.
    func json<T: Decodable>(_ type: T.Type, _ request: HTTPClientRequest) async throws -> T {
        let body = try await data(request)
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw HTTPProviderError(provider: provider, kind: .malformedResponse, message: "unexpected JSON (\(error))")
        }
    }

    /// The body's bytes as they arrive, with transport errors mapped. A gap of more than
    /// ``HTTPTimeouts/idle`` between two chunks ends the stream with `.timeout(.idle)` and
    /// closes the connection; the wait for the response head is ``send(_:)``'s alone.
    func chunks(_ response: HTTPClientResponse) -> AsyncThrowingStream<ByteBuffer, any Error> {
        let body = response.body
        let call = self
        let idle = timeouts.idle
        return .producing { continuation in
            let lastChunk = InstantBox(ContinuousClock.now)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // One watchdog per stream rather than a timer per chunk: it sleeps until the
                // latest chunk's deadline and fires only if no chunk came meanwhile. Ending the
                // stream cancels this task, and with it the read below.
                group.addTask {
                    var deadline = lastChunk.get() + idle
                    var confirming = false
                    while !Task.isCancelled {
                        do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
                        let woke = ContinuousClock.now
                        let last = lastChunk.get()
                        if woke - last < idle {
                            confirming = false
                            deadline = last + idle
                        } else if confirming {
                            continuation.finish(
                                throwing: HTTPProviderError(
                                    provider: call.provider, kind: .timeout(.idle), message: "no data for \(idle)"))
                            return
                        } else {
                            // The gap is long enough; it is confirmed after a grace that starts
                            // now, in case the process was suspended with data waiting.
                            confirming = true
                            deadline = woke + TimeoutGrace.after(idle)
                        }
                    }
                }
                do {
                    for try await buffer in body {
                        lastChunk.set(ContinuousClock.now)
                        continuation.yield(buffer)
                    }
                } catch {
                    throw call.map(error)
                }
                group.cancelAll()
            }
        }
    }

    func collect(_ response: HTTPClientResponse, limit: Int) async throws -> Data {
        do {
            let buffer = try await response.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch {
            throw map(error)
        }
    }

    /// A request with JSON body and the given headers.
    func request(_ url: String, method: HTTPMethod = .POST, headers: [(String, String)] = [], json body: (any Encodable)? = nil) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try encoder.encode(body)))
        }
        return request
    }

    /// Maps AsyncHTTPClient and NIO errors to typed provider errors.
    func map(_ error: any Error) -> any Error {
        if error is HTTPProviderError || error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return HTTPProviderError(provider: provider, kind: .timeout(.connect), message: "\(client)")
            case .deadlineExceeded: return HTTPProviderError(provider: provider, kind: .timeout(.firstByte), message: "\(client)")
            case .readTimeout: return HTTPProviderError(provider: provider, kind: .timeout(.idle), message: "\(client)")
            case .cancelled: return CancellationError()
            case .remoteConnectionClosed:
                return HTTPProviderError(provider: provider, kind: .transport, message: "the server closed the connection")
            default: break
            }
        }
        return HTTPProviderError(provider: provider, kind: .transport, message: "\(error)")
    }
}

extension ByteBuffer {
    init(data: Data) {
        self.init(bytes: data)
    }
}

/// A lock-guarded instant, shared by a body reader and its idle watchdog.
private final class InstantBox: Sendable {
    private let value: Mutex<ContinuousClock.Instant>

    init(_ value: ContinuousClock.Instant) { self.value = Mutex(value) }

    func get() -> ContinuousClock.Instant { value.withLock { $0 } }
    func set(_ new: ContinuousClock.Instant) { value.withLock { $0 = new } }
}
