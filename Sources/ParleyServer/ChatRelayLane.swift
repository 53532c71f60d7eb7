import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import ParleyCloud
import ParleyCore
import ParleyRuntime
import ParleyData
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
        var health: (any FailoverHealth)?
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
/// relayed there (by ``ChatRelayHandler``): a request the ``Admission`` lets in, a body whose
/// ``ChatRoute`` (the one the usual way reads too) says it relays, a route found before and a
/// healthy provider, checked without leaving the connection's thread. Admission is the router's own, called here: the same key,
/// origin and host rules, the same limits (a request taken here and then handed to the router
/// is given back first), the same request id and access-log line.
struct ChatRelayLane: Sendable {
    let environment: ServerEnvironment

    init(environment: ServerEnvironment) {
        self.environment = environment
    }

    static let path = "/v1/chat/completions"

    /// Whether the request's head lets it be relayed here — HTTP/1.1, the route, a body of
    /// known length within the limit, nothing the usual way must answer itself (`Expect`,
    /// `Connection: close`, `Upgrade`) — and the admission lets it in (its limit is taken
    /// later, with ``take(_:)``): who it is, or `nil` for the usual way.
    func accepts(_ head: HTTPRequestHead) -> Admission.Admitted? {
        guard head.method == .POST, head.version == .http1_1, head.uri == Self.path else { return nil }
        var length: Int?
        var seen = Admission.Head(method: "POST", path: Self.path)
        for (name, value) in head.headers {
            // Names compared without case, as HTTP wants (byte by byte: no string is made); a
            // repeated length or key is not ours.
            if ASCII.equalsIgnoringCase(name, "content-length") {
                guard length == nil else { return nil }
                length = Int(value)
            } else if ASCII.equalsIgnoringCase(name, "authorization") {
                guard seen.authorization == nil else { return nil }
                seen.authorization = value
            } else if ASCII.equalsIgnoringCase(name, "expect") || ASCII.equalsIgnoringCase(name, "upgrade")
                || ASCII.equalsIgnoringCase(name, "transfer-encoding") || ASCII.equalsIgnoringCase(name, "sec-websocket-protocol")
            {
                return nil
            } else if ASCII.equalsIgnoringCase(name, "connection") {
                // `keep-alive` is HTTP/1.1's default; a close or an upgrade needs the router.
                let options = value.lowercased()
                if options.contains("close") || options.contains("upgrade") { return nil }
            } else if ASCII.equalsIgnoringCase(name, "origin") {
                seen.origin = value
            } else if ASCII.equalsIgnoringCase(name, "host") {
                seen.host = value
            } else if ASCII.equalsIgnoringCase(name, "sec-fetch-site") {
                seen.fetchSite = value
            } else if ASCII.equalsIgnoringCase(name, "content-type") {
                seen.contentType = value
            } else if ASCII.equalsIgnoringCase(name, "x-request-id") {
                seen.requestID = value
            }
        }
        guard let length, length > 0, length <= environment.configuration.maxChatBytes else { return nil }
        guard case .success(let admitted) = environment.admission.admit(seen, counting: false) else { return nil }
        return admitted
    }

    /// Takes the request from its key's limit: the headers to send, or `nil` when the limit is
    /// reached (the router then answers the 429).
    func take(_ admitted: Admission.Admitted) -> [(String, String)]? {
        let admission = environment.admission
        guard admission.limits.isOn else { return [] }
        guard case .success(let headers) = admission.take(admitted.owner) else { return nil }
        return headers
    }

    /// The route for a request whose whole body has come, or `nil` when the usual way must
    /// answer it.
    func route(for head: HTTPRequestHead, body: ByteBuffer, owner: Owner) -> (route: RelayRoutes.Route, selection: ProviderSelection)? {
        let cache = environment.responseCache
        let catalog = environment.runtime.catalog
        let decided: ChatRoute
        if let plain = PlainChatBody(body.readableBytesView),
            let route = ChatRoute.of(plain, headers: HTTPFields(head.headers, splitCookie: false), caching: cache.isOn, catalog: catalog)
        {
            // The plainest body, recognized without decoding it (it would decode to the same).
            decided = route
        } else {
            // Streams are the usual way's here: the event loop relays whole answers only.
            guard let request = try? Request.decoder.decode(ChatCompletionRequest.self, from: Data(body.readableBytesView)),
                let chat = try? request.chatRequest(), !request.streams
            else { return nil }
            decided = ChatRoute.of(
                request, chat: chat, owner: owner, headers: HTTPFields(head.headers, splitCookie: false), caching: cache.isOn, catalog: catalog,
                onDeviceModel: environment.runtime.currentLanguageModel.path)
        }
        guard decided.relays else { return nil }
        let selection = decided.selection
        guard let route = environment.relayRoutes.route(for: selection),
            route.health?.isHealthy(route.provider.identity.description) ?? true,
            route.onDeviceModel == environment.runtime.currentLanguageModelPath
        else { return nil }
        return (route, selection)
    }

    /// Counts an answered request as the usual way does, charges its tokens to its key and
    /// writes its access-log line.
    func answered(_ answer: RelayedWhole, route: RelayRoutes.Route, admitted: Admission.Admitted, since start: ContinuousClock.Instant) {
        let usage = RelayedCompletion.usage(ofCompletion: Array(answer.body.readableBytesView))
        environment.metrics.recordRelayed(route.tally, status: answer.status, usage: usage, duration: .now - start)
        if let usage { environment.admission.charge(admitted.owner, usage: usage) }
        environment.admission.log(admitted.requestID, method: "POST", path: Self.path, status: answer.status, since: start)
    }
}
