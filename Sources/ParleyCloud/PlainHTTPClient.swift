import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyCore
import Synchronization

/// A small HTTP/1.1 client for `http://` servers, with kept-alive connections: how the relay
/// reaches a self-hosted OpenAI-compatible server (on this machine or the local network),
/// where a proxy's own cost is what its client notices. Compared with AsyncHTTPClient it does
/// less: one request per connection at a time, no TLS, no redirects, no proxies; the request's
/// head and body leave in one write, and a whole answer is collected on the event loop and
/// handed over once.
///
/// A kept-alive connection the server closed meanwhile is noticed before use, or, when the
/// request fails on it before any answer, the request is sent once more on a new connection.
final class PlainHTTPClient: Sendable {
    /// The process's client.
    static let shared = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)

    /// A server: host and port.
    struct Endpoint: Hashable, Sendable {
        var host: String
        var port: Int
    }

    /// A response whose body is read as it arrives. Dropping the body before its end closes
    /// the connection.
    struct StreamedResponse: Sendable {
        var head: HTTPResponseHead
        var body: AsyncThrowingStream<ByteBuffer, any Error>
    }

    /// Why a request failed in this client (the caller maps these to its own errors).
    enum Failure: Error, Equatable {
        /// The connection closed before the answer ended.
        case closed(answered: Bool)
        /// No response head within the first-byte timeout.
        case firstByteTimeout
        /// No bytes within the idle timeout while the body was coming.
        case idleTimeout
        /// The whole body exceeded the limit.
        case tooLarge(limit: Int)
    }

    private let group: any EventLoopGroup
    private let idle = Mutex<[Endpoint: [any Channel]]>([:])
    /// Kept-alive connections per server, at most.
    private static let keptPerServer = 128

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// Sends a request and returns the whole response, its body at most `limit` bytes.
    func whole(
        _ endpoint: Endpoint, head: HTTPRequestHead, body: ByteBuffer, timeouts: HTTPTimeouts,
        limit: Int
    ) async throws -> (head: HTTPResponseHead, body: ByteBuffer) {
        try await exchange(endpoint, timeouts: timeouts) { channel in
            let promise = channel.eventLoop.makePromise(of: (HTTPResponseHead, ByteBuffer).self)
            channel.writeAndFlush(Exchange(head: head, body: body, timeouts: timeouts, delivery: .whole(promise, limit: limit)), promise: nil)
            let (responseHead, responseBody) = try await promise.futureResult.get()
            return (responseHead, responseBody)
        }
    }

    /// What an exchange made on an event loop hands its whole answer (head and body) to.
    typealias WholeAnswer = (Result<(HTTPResponseHead, ByteBuffer), any Error>) -> Void

    /// Sends a request from `loop` (the caller runs there) and hands the whole response, its
    /// body at most `limit` bytes, to `answer` there, once: for a caller that runs on an event
    /// loop (a server's connection) and would lose more to the hops to and from a task, or to
    /// futures, than the exchange costs. A kept-alive connection on `loop` is used when there
    /// is one, else a new one is made there.
    func whole(
        _ endpoint: Endpoint, head: HTTPRequestHead, body: ByteBuffer, timeouts: HTTPTimeouts, limit: Int,
        on loop: any EventLoop, then answer: @escaping WholeAnswer
    ) {
        let exchange = { (answer: @escaping WholeAnswer) in
            Exchange(head: head, body: body, timeouts: timeouts, delivery: .onLoop(NIOLoopBound(answer, eventLoop: loop), limit: limit))
        }
        let fresh = NIOLoopBound(
            { (answer: @escaping WholeAnswer) in
                self.connect(to: endpoint, timeouts: timeouts, on: loop).assumeIsolated().whenComplete { result in
                    switch result {
                    case .success(let channel): channel.writeAndFlush(exchange(answer), promise: nil)
                    case .failure(let error): answer(.failure(error))
                    }
                }
            }, eventLoop: loop)
        guard let kept = keptConnection(to: endpoint, on: loop) else {
            fresh.value(answer)
            return
        }
        kept.writeAndFlush(
            exchange { result in
                // The server closed the kept-alive connection before answering: once more, on a new one.
                if case .failure(Failure.closed(answered: false)) = result { fresh.value(answer) } else { answer(result) }
            }, promise: nil)
    }

    /// Sends a request and returns once the response head has come; the body follows.
    func streamed(_ endpoint: Endpoint, head: HTTPRequestHead, body: ByteBuffer, timeouts: HTTPTimeouts) async throws -> StreamedResponse {
        try await exchange(endpoint, timeouts: timeouts) { channel in
            let promise = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
            continuation.onTermination = { termination in
                // Left before the end: the rest of the answer must not reach the next request.
                if case .cancelled = termination { channel.close(promise: nil) }
            }
            channel.writeAndFlush(Exchange(head: head, body: body, timeouts: timeouts, delivery: .streamed(promise, continuation)), promise: nil)
            return StreamedResponse(head: try await promise.futureResult.get(), body: stream)
        }
    }

    /// Runs `send` on a kept-alive or new connection; once more on a new one when a kept-alive
    /// connection closed before any answer. Cancelling closes the connection.
    private func exchange<T: Sendable>(
        _ endpoint: Endpoint, timeouts: HTTPTimeouts,
        _ send: @escaping @Sendable (any Channel) async throws -> T
    ) async throws -> T {
        let (channel, reused) = try await connection(to: endpoint, timeouts: timeouts)
        do {
            return try await withTaskCancellationHandler {
                try await send(channel)
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch Failure.closed(answered: false) where reused {
            let fresh = try await connect(to: endpoint, timeouts: timeouts)
            return try await withTaskCancellationHandler {
                try await send(fresh)
            } onCancel: {
                fresh.close(promise: nil)
            }
        }
    }

    private func connection(to endpoint: Endpoint, timeouts: HTTPTimeouts) async throws -> (any Channel, reused: Bool) {
        if let kept = keptConnection(to: endpoint, on: nil) { return (kept, true) }
        return (try await connect(to: endpoint, timeouts: timeouts), false)
    }

    /// A kept-alive connection that is still open: the last one kept on `loop`, or (with no
    /// loop) the last one kept.
    private func keptConnection(to endpoint: Endpoint, on loop: (any EventLoop)?) -> (any Channel)? {
        idle.withLock { idle in
            guard var kept = idle[endpoint] else { return nil }
            defer { idle[endpoint] = kept }
            while let index = loop.map({ loop in kept.lastIndex { $0.eventLoop === loop } }) ?? kept.indices.last {
                let channel = kept.remove(at: index)
                if channel.isActive { return channel }
            }
            return nil
        }
    }

    private func connect(to endpoint: Endpoint, timeouts: HTTPTimeouts) async throws -> any Channel {
        try await connect(to: endpoint, timeouts: timeouts, on: group.next()).get()
    }

    private func connect(to endpoint: Endpoint, timeouts: HTTPTimeouts, on loop: any EventLoop) -> EventLoopFuture<any Channel> {
        let release: @Sendable (any Channel) -> Void = { [weak self] channel in self?.keep(channel, for: endpoint) }
        return ClientBootstrap(group: loop)
            .connectTimeout(timeouts.connect.timeAmount)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // No validation of outbound header fields: the one caller makes them from
                    // a URL it parsed and a key it checked once (see `OpenAILanguageModel`).
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(enableOutboundHeaderValidation: false)
                    try channel.pipeline.syncOperations.addHandler(ExchangeHandler(release: release))
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .map { channel in
                channel.closeFuture.whenComplete { [weak self] _ in self?.forget(channel, for: endpoint) }
                return channel
            }
    }

    private func keep(_ channel: any Channel, for endpoint: Endpoint) {
        let kept = idle.withLock { idle -> Bool in
            guard idle[endpoint, default: []].count < Self.keptPerServer else { return false }
            idle[endpoint, default: []].append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    private func forget(_ channel: any Channel, for endpoint: Endpoint) {
        idle.withLock { $0[endpoint]?.removeAll { $0 === channel } }
    }
}

/// One request on a connection and where its answer goes.
private struct Exchange: Sendable {
    enum Delivery: Sendable {
        case whole(EventLoopPromise<(HTTPResponseHead, ByteBuffer)>, limit: Int)
        /// To a function on the connection's event loop (see ``PlainHTTPClient/WholeAnswer``).
        case onLoop(NIOLoopBound<PlainHTTPClient.WholeAnswer>, limit: Int)
        case streamed(EventLoopPromise<HTTPResponseHead>, AsyncThrowingStream<ByteBuffer, any Error>.Continuation)
    }

    var head: HTTPRequestHead
    var body: ByteBuffer
    var timeouts: HTTPTimeouts
    var delivery: Delivery
}

/// Writes an exchange's request and hands its response over; lives on the connection's event
/// loop, one exchange at a time.
private final class ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    private let release: @Sendable (any Channel) -> Void
    private var current: Exchange?
    private var head: HTTPResponseHead?
    private var collected = ByteBuffer()
    /// The timer's task and when it fires.
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?
    /// What the timer waits for, since when, and whether the limit has run out once already
    /// (it is then confirmed by a grace; see `TimeoutGrace`).
    private var waiting: (limit: Duration, failure: PlainHTTPClient.Failure, since: NIODeadline, confirming: Bool)?

    init(release: @escaping @Sendable (any Channel) -> Void) {
        self.release = release
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        current = exchange
        head = nil
        collected.clear()
        // A connection closed before the request left (a kept-alive one the server dropped)
        // fails the exchange at once, as unanswered, so that it is sent again on a new one;
        // one that closes later fails it when it goes (`channelInactive`).
        guard context.channel.isActive else {
            fail(PlainHTTPClient.Failure.closed(answered: false), context: context)
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        arm(context, after: exchange.timeouts.firstByte, failure: .firstByteTimeout)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if exchange.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(exchange.body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange = current else { return }
        switch unwrapInboundIn(data) {
        case .head(let responseHead):
            head = responseHead
            arm(context, after: exchange.timeouts.idle, failure: .idleTimeout)
            if case .streamed(let promise, _) = exchange.delivery { promise.succeed(responseHead) }
        case .body(var part):
            // The idle timer stays scheduled; it looks at when the last part came when it fires.
            waiting?.since = .now()
            waiting?.confirming = false
            switch exchange.delivery {
            case .whole(_, let limit), .onLoop(_, let limit):
                guard collected.readableBytes + part.readableBytes <= limit else {
                    fail(PlainHTTPClient.Failure.tooLarge(limit: limit), context: context)
                    return
                }
                collected.writeBuffer(&part)
            case .streamed(_, let continuation):
                continuation.yield(part)
            }
        case .end:
            disarm()
            current = nil
            // Back in the pool before the answer is handed over, so that the next request
            // (which the answer may start at once) finds it.
            if head?.isKeepAlive == true { release(context.channel) } else { context.close(promise: nil) }
            switch exchange.delivery {
            case .whole(let promise, _):
                if let head {
                    promise.succeed((head, collected))
                } else {
                    promise.fail(PlainHTTPClient.Failure.closed(answered: false))
                }
                collected = ByteBuffer()
            case .onLoop(let answer, _):
                let body = collected
                collected = ByteBuffer()
                answer.value(head.map { .success(($0, body)) } ?? .failure(PlainHTTPClient.Failure.closed(answered: false)))
            case .streamed(_, let continuation):
                continuation.finish()
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if current != nil { fail(PlainHTTPClient.Failure.closed(answered: head != nil), context: context) }
        timer?.task.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A socket error before the answer began (a reset: the server dropped a kept-alive
        // connection as the request went out) is the same as a close before any answer, so
        // that a reused connection's request is sent again on a new one.
        if current != nil { fail(head == nil && error is IOError ? PlainHTTPClient.Failure.closed(answered: false) : error, context: context) }
        context.close(promise: nil)
    }

    /// Starts waiting for `failure`'s event (the head, or the next part) for at most `limit`.
    /// The timer is scheduled anew only when it would fire too late: one that fires early
    /// looks at what it waits for then, and waits on (so back-to-back exchanges on a
    /// kept-alive connection do not schedule and cancel timers of their own).
    private func arm(_ context: ChannelHandlerContext, after limit: Duration, failure: PlainHTTPClient.Failure) {
        let now = NIODeadline.now()
        waiting = (limit, failure, now, false)
        let deadline = now + limit.timeAmount
        if let timer, timer.deadline <= deadline { return }
        timer?.task.cancel()
        schedule(context, at: deadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            check(context)
        }
        timer = (task, deadline)
    }

    /// The timer fired: waits on if something came meanwhile, confirms a limit that ran out
    /// once by a grace starting now, and fails the exchange when the grace ran out too.
    private func check(_ context: ChannelHandlerContext) {
        guard var state = waiting else { return }
        let now = NIODeadline.now()
        if now - state.since < state.limit.timeAmount {
            schedule(context, at: state.since + state.limit.timeAmount)
        } else if state.confirming {
            fail(state.failure, context: context)
        } else {
            state.confirming = true
            waiting = state
            schedule(context, at: now + TimeoutGrace.after(state.limit).timeAmount)
        }
    }

    /// Stops waiting; the timer, if scheduled, finds nothing to wait for when it fires.
    private func disarm() {
        waiting = nil
    }

    /// Fails the exchange in progress and closes the connection.
    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        disarm()
        guard let exchange = current else { return }
        current = nil
        switch exchange.delivery {
        case .whole(let promise, _):
            promise.fail(error)
        case .onLoop(let answer, _):
            answer.value(.failure(error))
        case .streamed(let promise, let continuation):
            promise.fail(error)  // ignored once the head has come
            continuation.finish(throwing: error)
        }
        context.close(promise: nil)
    }
}
