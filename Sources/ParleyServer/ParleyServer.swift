import Foundation
import Hummingbird
import Logging
import NIOCore
import ParleyRuntime
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
/// | `/v1/threads…`, `/v1/stash…` | the caller's saved conversations and stash, as JSON (see ``ThreadsEndpoint``) |
/// | `GET /health` | liveness and each chain's providers (open without a key) |
/// | `GET /metrics` | Prometheus text |
///
/// A server is a `Service`: run it in a `ServiceGroup` with graceful-shutdown signals, and on
/// shutdown it stops accepting connections, lets requests in flight finish (streams
/// included), then stops its probes.
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

    /// Makes a server over `runtime`; it listens once ``run()`` is called, and reports the port
    /// it listens on (useful with port 0) to `onListening`.
    ///
    /// - Throws: ``ServerConfiguration/Invalid`` for a configuration that must not be served,
    ///   such as a non-loopback address without keys.
    public init(runtime: Runtime<ContinuousClock>, configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
                logger: Logger = Logger(label: "parley.server"),
                onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) throws(ServerConfiguration.Invalid) {
        try configuration.validate()
        self.metrics = metrics
        self.configuration = configuration
        let environment = ServerEnvironment(runtime: runtime, configuration: configuration, metrics: metrics, logger: logger,
                                            started: ServerEnvironment.now)
        let router = Self.router(environment)
        let idleTimeout = configuration.idleTimeout.map { TimeAmount.nanoseconds(Self.nanoseconds($0)) }
        application = Application(
            router: router, server: .http1(configuration: .init(idleTimeout: idleTimeout)),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "parley"),
            services: [ServerMonitor(environment: environment)],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// How logs (ServiceLifecycle's among them) name the server: never with its keys.
    public var description: String { "ParleyServer(\(configuration.host):\(configuration.port))" }

    /// Serves until the task is cancelled or a graceful shutdown is triggered.
    public func run() async throws {
        try await application.run()
    }

    /// The routes, behind the metrics, error and authentication middleware (in that order,
    /// outermost first). A new endpoint (e.g. `/v1/realtime`) is one more `register(on:)`.
    static func router(_ environment: ServerEnvironment) -> Hummingbird.Router<ServerRequestContext> {
        let router = Hummingbird.Router(context: ServerRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: environment.metrics))
        router.add(middleware: OpenAIErrorMiddleware())
        router.add(middleware: BearerAuthMiddleware(keys: environment.configuration.apiKeys, openPaths: ["/health"]))
        HealthEndpoint(environment: environment).register(on: router)
        MetricsEndpoint(environment: environment).register(on: router)
        ModelsEndpoint(environment: environment).register(on: router)
        ChatCompletionsEndpoint(environment: environment).register(on: router)
        TranscriptionsEndpoint(environment: environment).register(on: router)
        SpeechEndpoint(environment: environment).register(on: router)
        ThreadsEndpoint(environment: environment).register(on: router)
        ThreadMessagesEndpoint(environment: environment).register(on: router)
        StashEndpoint(environment: environment).register(on: router)
        return router
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
