import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The loopback end of Google's installed-app sign-in: a one-request HTTP listener on
/// 127.0.0.1 (a port the system picks) that the browser is sent back to with `code` and
/// `state`. It answers the browser with a short page and hands the code over.
public final class LoopbackRedirect: Sendable {
    private let channel: any Channel
    private let outcome: Outcome
    /// Where Google sends the browser back: `http://127.0.0.1:PORT`.
    public let redirectURI: String

    private init(channel: any Channel, outcome: Outcome, port: Int) {
        self.channel = channel
        self.outcome = outcome
        redirectURI = "http://127.0.0.1:\(port)"
    }

    /// Starts listening on 127.0.0.1.
    public static func start() async throws -> LoopbackRedirect {
        let outcome = Outcome()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(RedirectHandler(outcome: outcome))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw GoogleError.signInFailed("no local port to listen on")
        }
        return LoopbackRedirect(channel: channel, outcome: outcome, port: port)
    }

    /// Waits for the browser to come back, and returns the code if its `state` is `state`.
    /// Throws ``GoogleError/accessDenied`` when the person refused, and
    /// ``GoogleError/signInFailed(_:)`` on a wrong state or after `timeout`.
    public func code(expecting state: String, timeout: Duration = .seconds(300)) async throws(GoogleError) -> String {
        let query: [String: String]
        do {
            query = try await withThrowingTaskGroup(of: [String: String].self) { group in
                group.addTask { await self.outcome.wait() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw GoogleError.signInFailed("no answer from the browser within \(timeout)")
                }
                let first = try await group.next() ?? [:]
                group.cancelAll()
                return first
            }
        } catch let error as GoogleError {
            throw error
        } catch {
            throw .signInFailed("cancelled")
        }
        if query["error"] == "access_denied" { throw .accessDenied }
        if let error = query["error"] { throw .signInFailed(error) }
        guard query["state"] == state else { throw .signInFailed("the answer's state does not match this sign-in") }
        guard let code = query["code"], !code.isEmpty else { throw .signInFailed("the answer has no code") }
        return code
    }

    /// Stops listening.
    public func close() async {
        try? await channel.close()
    }
}

/// The first redirect's query, handed from the event loop to the waiting task. A wait that
/// is cancelled returns an empty query.
private final class Outcome: Sendable {
    private struct State {
        var query: [String: String]?
        var waiters: [CheckedContinuation<[String: String], Never>] = []
        var cancelled = false
    }

    private let state = Mutex(State())

    func deliver(_ query: [String: String]) {
        let waiters = state.withLock { state -> [CheckedContinuation<[String: String], Never>] in
            guard state.query == nil else { return [] }
            state.query = query
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: query) }
    }

    func wait() async -> [String: String] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> [String: String]? in
                    if let query = state.query { return query }
                    if state.cancelled { return [:] }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiters = state.withLock { state -> [CheckedContinuation<[String: String], Never>] in
                state.cancelled = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: [:]) }
        }
    }
}

private final class RedirectHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let outcome: Outcome

    init(outcome: Outcome) {
        self.outcome = outcome
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(FormEncoding.decode) ?? [:]
        let answered = query["code"] != nil || query["error"] != nil
        let page =
            answered
            ? "<!doctype html><title>Parley</title><p>Parley has your answer. You can close this tab.</p>"
            : "<!doctype html><title>Parley</title><p>Waiting for Google's sign-in.</p>"
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/html; charset=utf-8")
        headers.add(name: "content-length", value: String(page.utf8.count))
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: answered ? .ok : .notFound, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: page)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        if answered { outcome.deliver(query) }
    }
}
