import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import ParleyCloud
import ParleyCore
import ParleyRuntime
import Synchronization

/// Where plain chat completions were relayed, per model selection: what the relay on the event
/// loop (``ChatRelayHandler``) needs to send the next request the same way without asking the
/// runtime. Filled by the usual way (``ChatCompletionsEndpoint``) each time it relays to a
/// plain `http://` OpenAI-compatible server, and emptied of a selection when its relay fails.
final class RelayRoutes: Sendable {
    /// How requests for one selection were relayed.
    struct Route: Sendable {
        /// The provider that answered first.
        var provider: OpenAILanguageModel
        /// The chain it heads (for the fallback metrics), or itself alone.
        var chain: [ProviderIdentity]
        /// The chain's health registry, consulted before each relay; `nil` for a provider
        /// named alone.
        var health: ProviderHealth<ContinuousClock>?
        /// The chain's first-output limit, if shorter than the provider's own.
        var firstByte: Duration?
        /// The on-device model when the route was found: the runtime makes its chains afresh
        /// when it changes.
        var onDeviceModel: String
        /// What its answers count on.
        var tally: ServerMetrics.RelayTally
    }

    private let routes = Mutex<[ProviderSelection: Route]>([:])
    /// Clients may name any model: a few dozen routes are kept at most.
    private static let kept = 32

    /// Keeps how `selection` was relayed.
    func remember(_ route: Route, for selection: ProviderSelection) {
        routes.withLock { routes in
            if routes.count >= Self.kept, routes[selection] == nil { routes.removeAll() }
            routes[selection] = route
        }
    }

    /// How `selection` was last relayed, if it was.
    func route(for selection: ProviderSelection) -> Route? {
        routes.withLock { $0[selection] }
    }

    /// Forgets `selection`'s route: its next request takes the usual way.
    func forget(_ selection: ProviderSelection) {
        _ = routes.withLock { $0.removeValue(forKey: selection) }
    }
}

/// What decides, on the event loop, whether a request to `POST /v1/chat/completions` can be
/// relayed there: the same conditions as the usual way's relay (a key that is let in, a body
/// that decodes, no response schema, no images, not cacheable, a route found before and a
/// healthy provider), checked without leaving the connection's thread.
struct ChatRelayLane: Sendable {
    let environment: ServerEnvironment
    /// The server's keys, as bytes.
    let keys: [[UInt8]]

    init(environment: ServerEnvironment) {
        self.environment = environment
        keys = environment.configuration.apiKeys.map { Array($0.utf8) }
    }

    static let path = "/v1/chat/completions"

    /// Whether the request's head lets it be relayed here: the route, a body of known length
    /// within the limit, a key the server knows (or none needed), and nothing the usual way
    /// must answer itself (`Expect`, `Connection: close`).
    func accepts(_ head: HTTPRequest) -> Bool {
        guard head.method == .post, head.path == Self.path,
              let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > 0,
              length <= environment.configuration.maxChatBytes,
              head.headerFields[.expect] == nil,
              head.headerFields[.connection]?.lowercased() != "close" else { return false }
        guard !keys.isEmpty else { return true }
        guard let presented = BearerAuthMiddleware.bearerToken(head.headerFields[.authorization]) else { return false }
        return BearerAuthMiddleware.index(of: presented, among: keys) != nil
    }

    /// The route for a request whose whole body has come, or `nil` when the usual way must
    /// answer it.
    func route(for head: HTTPRequest, body: ByteBuffer) -> (route: RelayRoutes.Route, selection: ProviderSelection)? {
        let cache = environment.responseCache
        let selection: ProviderSelection
        if let plain = PlainChatBody(body.readableBytesView), !(cache.isOn && plain.temperature == 0) {
            // The plainest body, recognized without decoding it (it would decode to the same),
            // and not one the cache may answer (only a request at temperature 0 is cached).
            selection = self.selection(for: plain.model)
        } else {
            guard let request = try? Request.decoder.decode(ChatCompletionRequest.self, from: Data(body.readableBytesView)),
                  let chat = try? request.chatRequest(), chat.responseSchema == nil, !chat.hasImages, !request.streams else { return nil }
            selection = self.selection(for: request.model)
            if cache.isOn, ChatCacheKey.key(for: request, chat: chat, selection: selection, owner: .local, headers: head.headerFields) != nil {
                return nil
            }
        }
        guard let route = environment.relayRoutes.route(for: selection),
              route.health?.isHealthy(route.provider.identity.description) ?? true,
              route.onDeviceModel == environment.runtime.currentLanguageModelPath else { return nil }
        return (route, selection)
    }

    private func selection(for model: String?) -> ProviderSelection {
        ModelResolution.selection(for: model, capability: .languageModel, catalog: environment.runtime.catalog)
    }

    /// Counts an answered request as the usual way does.
    func answered(_ answer: RelayedWhole, route: RelayRoutes.Route, since start: ContinuousClock.Instant) {
        environment.metrics.recordRelayed(route.tally, status: answer.status,
                                          usage: RelayedCompletion.usage(ofCompletion: Array(answer.body.readableBytesView)),
                                          duration: .now - start)
    }
}

/// Relays plain (not streamed) chat completions on the connection's event loop, in front of
/// the router: a request the relay applies to (see ``ChatRelayLane``) is sent to the provider
/// from here and its answer written back from here, without the hops to a task and back that
/// the usual way makes for every request. Any other request, and one whose relay fails (the
/// provider down, an error status), goes to the router as it came, and the usual way answers
/// it with its fallbacks and error shapes.
///
/// Order on a connection is kept: a request is relayed here only when no answer from the
/// router is outstanding, and requests that come while one is relayed wait (as does reading
/// more) until its answer is written.
final class ChatRelayHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        case idle
        /// A request is going to the router, part by part.
        case passing
        /// A request this handler may relay: its head, and its body so far.
        case collecting(HTTPRequest, ByteBuffer)
        /// A request is being relayed.
        case relaying
    }

    /// What came while a request was being relayed.
    private enum Waiting {
        case part(HTTPRequestPart)
        case event(Any)
    }

    private let lane: ChatRelayLane
    private var state = State.idle
    /// Requests handed to the router whose answers have not ended.
    private var routed = 0
    private var waiting = CircularBuffer<Waiting>()
    private var readHeld = false

    init(lane: ChatRelayLane) {
        self.lane = lane
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .relaying = state {
            waiting.append(.part(part))
        } else {
            take(part, context: context)
        }
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (state, part) {
        case (.idle, .head(let head)):
            if routed == 0, lane.accepts(head) {
                state = .collecting(head, ByteBuffer())
            } else {
                state = .passing
                routed += 1
                context.fireChannelRead(wrapInboundOut(part))
            }
        case (.collecting(let head, var body), .body(var bytes)):
            state = .idle  // so that `body` is not copied
            body.writeBuffer(&bytes)
            state = .collecting(head, body)
        case (.collecting(let head, let body), .end):
            relay(head, body: body, context: context)
        case (.passing, .end):
            state = .idle
            context.fireChannelRead(wrapInboundOut(part))
        default:
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    private func relay(_ head: HTTPRequest, body: ByteBuffer, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        guard let (route, selection) = lane.route(for: head, body: body) else {
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
                lane.answered(answer, route: route, since: start)
                write(answer, from: route.provider.identity, context: context)
            } else {
                // The usual way decides what the failure means (a fallback, an error shape),
                // and finds the route again once the provider answers.
                lane.environment.relayRoutes.forget(selection)
                hand(head, body: body, context: context)
            }
            resume(context: context)
        }
        if !sent {
            state = .idle
            hand(head, body: body, context: context)
        }
    }

    private func write(_ answer: RelayedWhole, from provider: ProviderIdentity, context: ChannelHandlerContext) {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields.name(provider)
        fields[.contentLength] = String(answer.body.readableBytes)
        fields[.date] = HTTPDate.now
        fields[.server] = "parley"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .init(code: answer.status), headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Hands a whole request to the router.
    private func hand(_ head: HTTPRequest, body: ByteBuffer, context: ChannelHandlerContext) {
        routed += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
        context.fireChannelRead(wrapInboundOut(.end(nil)))
        context.fireChannelReadComplete()
    }

    /// Takes what waited while a request was relayed, up to the next relayed one, and reads on.
    private func resume(context: ChannelHandlerContext) {
        var took = false
        while !isRelaying, let next = waiting.popFirst() {
            took = true
            switch next {
            case .part(let part): take(part, context: context)
            case .event(let event): context.fireUserInboundEventTriggered(event)
            }
        }
        if took { context.fireChannelReadComplete() }
        if !isRelaying, readHeld {
            readHeld = false
            context.read()
        }
    }

    private var isRelaying: Bool {
        if case .relaying = state { true } else { false }
    }

    func read(context: ChannelHandlerContext) {
        if isRelaying { readHeld = true } else { context.read() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routed = max(0, routed - 1) }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if isRelaying || !waiting.isEmpty {
            waiting.append(.event(event))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
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
