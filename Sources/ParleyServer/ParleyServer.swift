import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ParleyRuntime
import ParleyData
import ServiceLifecycle

/// The assistant as an HTTP server: the runtime's fallback chains behind OpenAI-compatible
/// endpoints, with health and metrics. `parley serve` runs one; tests start one in-process on
/// 127.0.0.1 port 0.
///
/// | endpoint | |
/// | --- | --- |
/// | `POST /v1/chat/completions` | chat, streamed (SSE) or whole, with image parts |
/// | `POST /v1/audio/transcriptions` | speech to text (multipart WAV upload) |
/// | `POST /v1/audio/speech` | text to speech (WAV or 24 kHz PCM) |
/// | `GET /v1/models` | the names `model` can take |
/// | `GET /v1/realtime` | a voice conversation over a WebSocket (OpenAI Realtime protocol) |
/// | `POST /v1/responses`, `GET`/`DELETE /v1/responses/{id}` | OpenAI's Responses API (see `ResponsesEndpoint`) |
/// | `/v1/threads…`, `/v1/stash…` | the caller's saved conversations and stash, as JSON (see `ThreadsEndpoint`) |
/// | `/v1/materials…`, `GET /v1/assignments` | the caller's study materials and assignments (see `MaterialsEndpoint`) |
/// | `GET`/`PUT /v1/settings/model`, `/v1/settings/preferences` | the on-device model switch; the caller's client preferences (see `PreferencesEndpoint`) |
/// | `POST /v1/embeddings` | embeddings, relayed to an OpenAI-compatible server or Ollama (see `EmbeddingsEndpoint`) |
/// | `POST /v1/parley/compare` | one prompt, recording or sentence through every configured provider at once (see `CompareEndpoint`) |
/// | `POST /v1/mindmaps` | a mind map (outline and SVG) of a conversation, material or text (see `MindMapEndpoint`) |
/// | `GET`/`POST /v1/google/sync` | Google Drive, Calendar and Gmail sync (see `GoogleSyncEndpoint`) |
/// | `GET /health` | liveness and each chain's providers (open without a key) |
/// | `GET /metrics` | Prometheus text |
/// | `GET /` | the browser voice client (its files open without a key; see `WebClientEndpoint`) |
///
/// A server is a `Service`: run it in a `ServiceGroup` with graceful-shutdown signals, and on
/// shutdown it stops accepting connections, lets requests in flight finish (streams
/// included), then stops its probes.
///
/// With `PARLEY_DATABASE_URL=postgres://…` in the runtime's settings, the server keeps
/// conversations (and its response cache) in that PostgreSQL database instead of the SQLite
/// file, so that several instances behind a load balancer share them: ``run()`` connects and
/// migrates it before listening, and hands it to the runtime.
///
/// ```swift
/// let server = try ParleyServer(runtime: runtime, configuration: ServerConfiguration(port: 0)) { port in
///     print("listening on \(port)")
/// }
/// try await server.run()
/// ```
public struct ParleyServer: Service, CustomStringConvertible {
    /// What the server counts (also rendered at `GET /metrics`).
    public let metrics: ServerMetrics
    /// The configuration it was made with.
    public let configuration: ServerConfiguration
    private let application: Application<RouterResponder<ServerRequestContext>>
    private let environment: ServerEnvironment
    /// The shared database, when `PARLEY_DATABASE_URL` names one.
    private let sharedDatabase: DatabaseURL?

    /// Makes a server over `runtime`; it listens once ``run()`` is called, and reports the port
    /// it listens on (useful with port 0) to `onListening`.
    ///
    /// - Throws: ``ServerConfiguration/Invalid`` for a configuration that must not be served,
    ///   such as a non-loopback address without keys, or settings that cannot be used (a
    ///   `PARLEY_DATABASE_URL` that is not a PostgreSQL URL, a `PARLEY_CACHE_TTL` that is not
    ///   a number of seconds).
    public init(
        runtime: Runtime<ContinuousClock>, configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "parley.server"),
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws(ServerConfiguration.Invalid) {
        try configuration.validate()
        sharedDatabase = try configuration.sharedDatabase(runtime.settings)
        self.metrics = metrics
        self.configuration = configuration
        let cache = ResponseCache(ttl: try configuration.effectiveCacheTTL(runtime.settings), runtime: runtime, metrics: metrics, logger: logger)
        let limits = try ServerConfiguration.rateLimits(from: runtime.settings)
        let rateLimits = RateLimits(requestsPerMinute: limits.requests, tokensPerMinute: limits.tokens)
        let settings = runtime.settings
        let admission = Admission(
            keys: configuration.apiKeys, adminKeys: configuration.adminKeys,
            browser: BrowserPolicy(
                listening: configuration.host, allowedOrigins: ServerConfiguration.list("PARLEY_ALLOWED_ORIGINS", in: settings),
                allowedHosts: ServerConfiguration.list("PARLEY_ALLOWED_HOSTS", in: settings)),
            limits: rateLimits, openPaths: WebClientFiles.bundled.paths.union(["/health"]), logger: logger)
        let environment = ServerEnvironment(
            runtime: runtime, configuration: configuration, metrics: metrics, logger: logger,
            responseCache: cache, google: GoogleSyncScheduler(runtime: runtime, logger: logger),
            rateLimits: rateLimits, admission: admission, started: ServerEnvironment.now)
        self.environment = environment
        let router = Self.router(environment)
        let idleTimeout = configuration.idleTimeout.map { TimeAmount.nanoseconds(Self.nanoseconds($0)) }
        let webSocket = WebSocketServerConfiguration(maxFrameSize: configuration.maxRealtimeMessageBytes)
        application = Application(
            router: router,
            server: Self.http1(environment, webSocketRouter: Self.webSocketRouter(environment), webSocket: webSocket, idleTimeout: idleTimeout),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "parley"),
            services: [ServerMonitor(environment: environment), GoogleSyncService(scheduler: environment.google, logger: logger)],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// HTTP/1 with the WebSocket upgrade, and plain chat completions relayed on the event loop
    /// right behind HTTP/1's decoder (``ChatRelayHandler``, which also keeps the connection's
    /// idle timeout and graceful shutdown: it sees every request, relayed or not).
    static func http1(
        _ environment: ServerEnvironment, webSocketRouter: Hummingbird.Router<ServerRequestContext>,
        webSocket: WebSocketServerConfiguration, idleTimeout: TimeAmount?
    ) -> HTTPServerBuilder {
        let lane = ChatRelayLane(environment: environment)
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            RelayingHTTPChannel(
                upgrading: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: nil), ws: webSocket)),
                lane: lane, idleTimeout: idleTimeout)
        }
    }

    /// How logs (ServiceLifecycle's among them) name the server: never with its keys.
    public var description: String { "ParleyServer(\(configuration.host):\(configuration.port))" }

    /// Serves until the task is cancelled or a graceful shutdown is triggered.
    ///
    /// The shutdown is ordered: first every realtime connection finishes the reply in progress,
    /// saves it and is closed with "going away"; then the HTTP server stops accepting and lets
    /// requests in flight finish. (The application runs in its own service group, away from the
    /// caller's shutdown signal, so that its WebSocket layer does not close connections
    /// mid-reply before they are drained.)
    ///
    /// With a shared PostgreSQL database, it is connected to (and migrated) first: a database
    /// that cannot be reached is an error before anything listens. It is closed once the server
    /// has stopped.
    public func run() async throws {
        let shared = try await openSharedStore()
        // With a shared database, the instances enforce each key's limits together.
        let exchange = shared.flatMap { store in
            environment.rateLimits.isOn ? Task { await SharedLimits(limits: environment.rateLimits, store: store, logger: environment.logger).run() } : nil
        }
        do {
            try await serve()
        } catch {
            exchange?.cancel()
            await shared?.close()
            throw error
        }
        exchange?.cancel()
        await shared?.close()
    }

    /// Opens the shared database, if any, and makes it the runtime's store.
    private func openSharedStore() async throws -> (any SharedConversationStoring)? {
        guard let sharedDatabase else { return nil }
        let store = try await SharedStores.open(sharedDatabase, logger: environment.logger)
        await environment.runtime.use(store: store)
        environment.sharedDatabase.use(store)
        environment.logger.notice("conversations are kept in \(store.location)")
        return store
    }

    private func serve() async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: environment.logger))
        let serving = Task.detached { try await group.run() }
        let realtime = environment.realtime
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: {
                serving.cancel()
            }
        } onGracefulShutdown: {
            Task {
                await realtime.drainAll(limit: .seconds(20))
                await group.triggerGracefulShutdown()
            }
        }
    }

    /// The routes, behind the metrics, error and authentication middleware (in that order,
    /// outermost first). A new endpoint (e.g. `/v1/realtime`) is one more `register(on:)`.
    static func router(_ environment: ServerEnvironment) -> Hummingbird.Router<ServerRequestContext> {
        let router = Hummingbird.Router(context: ServerRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: environment.metrics))
        router.add(middleware: AdmissionMiddleware(admission: environment.admission))
        router.add(middleware: OpenAIErrorMiddleware())
        WebClientEndpoint(client: WebClientFiles.bundled).register(on: router)
        HealthEndpoint(environment: environment, reports: HealthReports(runtime: environment.runtime)).register(on: router)
        MetricsEndpoint(environment: environment).register(on: router)
        ModelsEndpoint(environment: environment).register(on: router)
        ModelSettingEndpoint(environment: environment).register(on: router)
        PreferencesEndpoint(environment: environment).register(on: router)
        MindMapEndpoint(environment: environment).register(on: router)
        CompareEndpoint(environment: environment).register(on: router)
        EmbeddingsEndpoint(environment: environment).register(on: router)
        ChatCompletionsEndpoint(environment: environment).register(on: router)
        ResponsesEndpoint(environment: environment).register(on: router)
        TranscriptionsEndpoint(environment: environment).register(on: router)
        SpeechEndpoint(environment: environment).register(on: router)
        ThreadsEndpoint(environment: environment).register(on: router)
        ThreadMessagesEndpoint(environment: environment).register(on: router)
        StashEndpoint(environment: environment).register(on: router)
        MaterialsEndpoint(environment: environment).register(on: router)
        GoogleSyncEndpoint(environment: environment).register(on: router)
        return router
    }

    /// The WebSocket routes (`/v1/realtime`), behind the same metrics, error and authentication
    /// middleware: the upgrade request carries the key, in `Authorization` or (from a browser)
    /// as the subprotocol `openai-insecure-api-key.KEY`.
    static func webSocketRouter(_ environment: ServerEnvironment) -> Hummingbird.Router<ServerRequestContext> {
        let router = Hummingbird.Router(context: ServerRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: environment.metrics))
        router.add(middleware: AdmissionMiddleware(admission: environment.admission, webSocket: true))
        router.add(middleware: OpenAIErrorMiddleware())
        RealtimeEndpoint(environment: environment).register(on: router)
        return router
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
