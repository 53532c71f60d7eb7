import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import ParleyCloud
import ParleyCore
import Synchronization

/// Relays plain (not streamed) chat completions on the connection's event loop, right behind
/// HTTP/1's decoder and in front of everything else: a request the relay applies to (see
/// ``ChatRelayLane``) is sent to the provider from here and its answer written back from here,
/// without the conversion to HTTP Types, the router's connection handling and the hops to a
/// task and back that the usual way makes for every request. Any other request, and one whose
/// relay fails (the provider down, an error status), goes on as it came, and the usual way
/// answers it with its fallbacks and error shapes.
///
/// Being in front of the router, it also keeps the connection's state for both ways (the
/// router's own is given no idle timeout and never hears of a shutdown):
/// - a connection with no request in progress for the idle timeout is closed;
/// - on a graceful shutdown (`ChannelShouldQuiesceEvent`), an idle connection is closed at once
///   and a busy one once its last answer is written.
///
/// Order on a connection is kept: a request is relayed here only when no answer from the
/// router is outstanding (one pipelined behind the router's is held until they are written),
/// and requests that come while one is held or relayed wait (as does reading more) until its
/// answer is written. A connection's first request always goes on, because
/// behind this handler the WebSocket upgrade is decided on it; when it asks for an upgrade,
/// the handler leaves the pipeline (a WebSocket is no longer HTTP).
final class ChatRelayHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// The next part is a request's head.
        case idle
        /// A request is going on, part by part.
        case passing
        /// A request this handler may relay: its head, who sent it, and its body so far.
        case collecting(HTTPRequestHead, Admission.Admitted, ByteBuffer)
        /// A whole request this handler may relay, held until the router has answered those
        /// before it (pipelined).
        case held(HTTPRequestHead, Admission.Admitted, ByteBuffer)
        /// A request is being relayed.
        case relaying
    }

    /// What came while a request was held or relayed.
    private enum Waiting {
        case part(HTTPServerRequestPart)
        case event(Any)
    }

    private let lane: ChatRelayLane
    private var state = State.idle
    /// Whether the connection's first request has gone on (see the type's note).
    private var pastFirst = false
    /// Whether the first request asked for an upgrade that is not yet granted or refused.
    private var upgrading = false
    /// When the first request asked for an upgrade.
    private var upgradeStarted: NIODeadline?
    /// How long an upgrade may take to be granted or refused.
    static let upgradeGrace = TimeAmount.seconds(10)
    /// Why the admission refuses the upgrade the first request asks for, if it does.
    private var upgradeRefusal: Admission.Refused?
    /// Whether the answer being written is a refusal's in place of the upgrade layer's own.
    private var replacing = false
    /// Whether the connection was upgraded (to a WebSocket): everything is passed on.
    private var upgraded = false
    /// Requests handed on whose answers have not ended.
    private var routed = 0
    private var waiting = CircularBuffer<Waiting>()
    private var readHeld = false
    private var life: ConnectionLife
    private var timer: Scheduled<Void>?

    /// - Parameter idleTimeout: how long a connection with no request in progress is kept open;
    ///   `nil` for as long as the client likes.
    init(lane: ChatRelayLane, idleTimeout: TimeAmount?) {
        self.lane = lane
        life = ConnectionLife(idleTimeout: idleTimeout)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // While an upgrade is decided behind, and once it is made, what comes may be the new
        // protocol's bytes (the decoder leaves first and forwards what it holds): passed on
        // untouched.
        guard !upgrading, !upgraded else {
            context.fireChannelRead(data)
            return
        }
        let part = unwrapInboundIn(data)
        life.read(part)
        if isHolding {
            waiting.append(.part(part))
        } else {
            take(part, context: context)
        }
    }

    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch (state, part) {
        case (.idle, .head(let head)):
            if pastFirst, let admitted = lane.accepts(head) {
                state = .collecting(head, admitted, ByteBuffer())
            } else {
                var head = head
                if !pastFirst {
                    pastFirst = true
                    // Only a GET is upgraded (RFC 6455): any other request asking for one is
                    // answered as plain HTTP (the upgrade layer would hold one with a body).
                    if head.method != .GET, head.headers.contains(name: "upgrade") {
                        head.headers.remove(name: "upgrade")
                        head.headers.remove(name: "connection")
                    }
                    upgrading = head.headers.contains(name: "upgrade")
                    if upgrading { upgradeStarted = .now() }
                    // The WebSocket router decides the upgrade with the same admission, but a
                    // refusal there comes out of the upgrade layer as a bare 400: the refusal is
                    // found here too, to be answered in its place (403, 401, … with its error).
                    if upgrading, case .failure(let refusal) = lane.environment.admission.admit(Admission.Head(head), counting: false) {
                        upgradeRefusal = refusal
                    }
                }
                state = .passing
                routed += 1
                context.fireChannelRead(wrapInboundOut(.head(head)))
            }
        case (.collecting(let head, let admitted, var body), .body(var bytes)):
            state = .idle  // so that `body` is not copied
            body.writeBuffer(&bytes)
            state = .collecting(head, admitted, body)
        case (.collecting(let head, let admitted, let body), .end):
            if routed == 0 {
                relay(head, admitted: admitted, body: body, context: context)
            } else {
                state = .held(head, admitted, body)
            }
        case (.passing, .end):
            state = .idle
            context.fireChannelRead(wrapInboundOut(part))
        default:
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    /// Writes a refused upgrade's error in place of the upgrade layer's bare answer (whose
    /// body parts, if any, are dropped until its end).
    private func answerRefusal(_ refusal: Admission.Refused, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        replacing = true
        let body = ByteBuffer(bytes: refusal.error.body)
        var headers = HTTPHeaders([
            ("content-type", "application/json"), ("content-length", String(body.readableBytes)), ("connection", "close"),
            ("x-request-id", refusal.requestID),
        ])
        headers.add(contentsOf: refusal.limitHeaders)
        let status = HTTPResponseStatus(statusCode: Int(refusal.error.status.code))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
    }

    private func relay(_ head: HTTPRequestHead, admitted: Admission.Admitted, body: ByteBuffer, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        // The router answers what is not relayed here, the 429 of a key over its limit included.
        guard let (route, selection) = lane.route(for: head, body: body, owner: admitted.owner), let limitHeaders = lane.take(admitted) else {
            state = .idle
            hand(head, body: body, context: context)
            return
        }
        state = .relaying
        let sent = route.provider.relayWhole(Array(body.readableBytesView), firstByte: route.firstByte, on: context.eventLoop) { [self] result in
            state = .idle
            // The client left meanwhile: nothing to answer, nothing more to read.
            guard context.channel.isActive else {
                waiting.removeAll()
                return
            }
            if case .success(let answer) = result, answer.isCompletion {
                lane.answered(answer, route: route, admitted: admitted, since: start)
                write(answer, from: route.provider.identity, admitted: admitted, limitHeaders: limitHeaders, version: head.version, context: context)
            } else {
                // The usual way decides what the failure means (a fallback, an error shape),
                // and finds the route again once the provider answers; it takes the request
                // from the key's limit itself.
                lane.environment.relayRoutes.forget(selection)
                lane.environment.admission.refund(admitted.owner)
                hand(head, body: body, context: context)
            }
            resume(context: context)
        }
        if !sent {
            state = .idle
            lane.environment.admission.refund(admitted.owner)
            hand(head, body: body, context: context)
        }
    }

    private func write(
        _ answer: RelayedWhole, from provider: ProviderIdentity, admitted: Admission.Admitted, limitHeaders: [(String, String)],
        version: HTTPVersion, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(7 + limitHeaders.count)
        headers.add(name: "content-type", value: "application/json")
        // The same names as the usual way's (`HTTPFields.name(_:)`).
        if Self.isFieldValue(provider.name) { headers.add(name: HTTPField.Name.parleyProvider.rawName, value: provider.name) }
        if let model = provider.model, Self.isFieldValue(model) { headers.add(name: HTTPField.Name.parleyModel.rawName, value: model) }
        headers.add(name: "content-length", value: String(answer.body.readableBytes))
        headers.add(name: "date", value: HTTPDate.now)
        headers.add(name: "server", value: "parley")
        headers.add(name: "x-request-id", value: admitted.requestID)
        headers.add(contentsOf: limitHeaders)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .init(statusCode: answer.status), headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        ended(.end(nil), promise: nil, flush: true, context: context)
    }

    /// Whether `value` can be sent as a header's value as it is (the encoder behind does not
    /// check): no control characters, no leading or trailing space.
    static func isFieldValue(_ value: String) -> Bool {
        guard let first = value.utf8.first, let last = value.utf8.last, first != 0x20, last != 0x20 else { return false }
        return value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Hands a whole request on.
    private func hand(_ head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        routed += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
        context.fireChannelRead(wrapInboundOut(.end(nil)))
        context.fireChannelReadComplete()
    }

    /// Relays the request held for the router's answers, once they are all written.
    private func release(context: ChannelHandlerContext) {
        guard routed == 0, case .held(let head, let admitted, let body) = state, context.channel.isActive else { return }
        state = .idle
        relay(head, admitted: admitted, body: body, context: context)
        if !isHolding { resume(context: context) }
    }

    /// Takes what waited while a request was held or relayed, up to the next such request, and
    /// reads on.
    private func resume(context: ChannelHandlerContext) {
        var took = false
        while !isHolding, let next = waiting.popFirst() {
            took = true
            switch next {
            case .part(let part): take(part, context: context)
            case .event(let event): deliver(event, context: context)
            }
        }
        if took { context.fireChannelReadComplete() }
        if !isHolding, readHeld {
            readHeld = false
            context.read()
        }
    }

    /// Whether a request is held or relayed: what comes meanwhile waits, and reading stops.
    private var isHolding: Bool {
        switch state {
        case .held, .relaying: true
        case .idle, .passing, .collecting: false
        }
    }

    func read(context: ChannelHandlerContext) {
        if isHolding { readHeld = true } else { context.read() }
    }

    // MARK: Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !upgraded else {
            context.write(data, promise: promise)
            return
        }
        let part = unwrapOutboundIn(data)
        if upgrading, case .head(let head) = part {
            upgrading = false
            if head.status == .switchingProtocols {
                // The upgrade the connection's first request asked for is granted: a WebSocket
                // is no longer HTTP, and this handler passes everything on from now (nothing
                // waits then: the first request always goes on). A refused upgrade (a foreign
                // origin, a bad key, `Upgrade: h2c`) keeps the connection HTTP, and so keeps
                // its idle timeout here.
                upgraded = true
                cancelTimer()
                context.write(data, promise: promise)
                return
            }
            // Refused: the upgrade request is answered as any other, and its end read as such.
            state = .idle
            if let refusal = upgradeRefusal {
                upgradeRefusal = nil
                answerRefusal(refusal, promise: promise, context: context)
                return
            }
        }
        if replacing {
            guard case .end = part else {
                promise?.succeed(())
                return
            }
            replacing = false
        }
        if case .end = part {
            routed = max(0, routed - 1)
            ended(part, promise: promise, flush: false, context: context)
            if routed == 0, case .held = state {
                // Once the router's write is over, not within it.
                context.eventLoop.assumeIsolated().execute { [self] in release(context: context) }
            }
        } else {
            context.write(data, promise: promise)
        }
    }

    /// Writes an answer's end, then closes the connection if a shutdown waited for it, or
    /// starts counting its idle time. (The router flushes its own writes.)
    private func ended(_ end: HTTPServerResponsePart, promise: EventLoopPromise<Void>?, flush: Bool, context: ChannelHandlerContext) {
        let next = life.answered()
        if flush || next == .close {
            context.writeAndFlush(wrapOutboundOut(end), promise: promise)
        } else {
            context.write(wrapOutboundOut(end), promise: promise)
        }
        switch next {
        case .close: context.close(promise: nil)
        case .idleFrom(let deadline): schedule(deadline, context: context)
        case .keepOpen: break
        }
    }

    // MARK: The connection's life

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, let deadline = life.activated() { schedule(deadline, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if let deadline = life.activated() { schedule(deadline, context: context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        life.deactivated()
        cancelTimer()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if upgraded {
            context.fireUserInboundEventTriggered(event)
        } else if isHolding || !waiting.isEmpty {
            waiting.append(.event(event))
        } else {
            deliver(event, context: context)
        }
    }

    private func deliver(_ event: Any, context: ChannelHandlerContext) {
        if event is ChannelShouldQuiesceEvent {
            // Kept here: the router's state handler behind must not close a connection whose
            // request is relayed here.
            if life.quiesce() { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Schedules the idle check, unless one is already due (it looks at the time when it runs).
    private func schedule(_ deadline: NIODeadline, context: ChannelHandlerContext) {
        guard timer == nil, !upgraded else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            // An upgrade being decided is a request being answered: its answer's end (or the
            // upgrade) decides what comes next; one that is not decided within the grace (a
            // body that never ends) is given up.
            if let since = upgradeStarted, upgrading {
                let limit = since + Self.upgradeGrace
                if NIODeadline.now() >= limit { context.close(promise: nil) } else { schedule(limit, context: context) }
                return
            }
            switch life.timedOut() {
            case .close: context.close(promise: nil)
            case .checkAgain(let deadline): schedule(deadline, context: context)
            case .nothing: break
            }
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

/// A connection's state, as far as closing it goes: requests in progress (read but not yet
/// answered), whether one is being read, when it was last active, and whether a shutdown waits
/// for its answers.
struct ConnectionLife {
    let idleTimeout: TimeAmount?
    private var inProgress = 0
    private var reading = false
    private var lastActive = NIODeadline.now()
    private var active = false
    private var closeWhenAnswered = false

    init(idleTimeout: TimeAmount?) {
        self.idleTimeout = idleTimeout
    }

    /// The connection is open: when to check for idleness first.
    mutating func activated() -> NIODeadline? {
        active = true
        lastActive = .now()
        return idleTimeout.map { lastActive + $0 }
    }

    mutating func deactivated() {
        active = false
    }

    mutating func read(_ part: HTTPServerRequestPart) {
        lastActive = .now()
        switch part {
        case .head:
            inProgress += 1
            reading = true
        case .body:
            break
        case .end:
            reading = false
        }
    }

    enum Answered: Equatable {
        /// Others are still in progress, or there is no idle timeout.
        case keepOpen
        /// The last was answered: check for idleness then.
        case idleFrom(NIODeadline)
        /// The last was answered and a shutdown waited for it.
        case close
    }

    mutating func answered() -> Answered {
        inProgress = max(0, inProgress - 1)
        guard inProgress == 0 else { return .keepOpen }
        if closeWhenAnswered { return .close }
        lastActive = .now()
        guard let idleTimeout, active else { return .keepOpen }
        return .idleFrom(lastActive + idleTimeout)
    }

    enum Timeout: Equatable {
        case close
        case checkAgain(NIODeadline)
        case nothing
    }

    /// The idle check ran.
    func timedOut(now: NIODeadline = .now()) -> Timeout {
        guard let idleTimeout, active else { return .nothing }
        // A request read whole and being answered: its answer's end schedules the next check.
        if !reading, inProgress > 0 { return .nothing }
        let due = lastActive + idleTimeout
        return now >= due ? .close : .checkAgain(due)
    }

    /// A graceful shutdown began: whether to close now (nothing in progress).
    mutating func quiesce() -> Bool {
        guard inProgress > 0 else { return true }
        closeWhenAnswered = true
        return false
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), made once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static var now: String {
        let second = Int(Date().timeIntervalSince1970)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, format(second)) }
            return cache.text
        }
    }

    /// Formats seconds since 1970 (UTC), e.g. `Thu, 26 Nov 2026 13:08:03 GMT`.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
