import CoreMetrics
import Foundation
import ParleyCore
import ParleyRuntime
import Prometheus
import Synchronization

/// What the server counts, recorded through swift-metrics into a Prometheus registry of its
/// own (not the process-wide `MetricsSystem`, so that servers sharing a process keep theirs
/// apart), and rendered as Prometheus text at `GET /metrics`:
///
/// - `parley_http_requests_total{route,method,status}` and
///   `parley_http_request_duration_seconds{route,method,status}` (to the end of the body, streams
///   included);
/// - `parley_provider_requests_total{capability,provider}`: who answered;
/// - `parley_fallbacks_total{capability,provider,reason}`: a request went past `provider`
///   (failed or skipped) to a later one in its chain, with the reason the provider's health
///   last gave;
/// - `parley_provider_health_changes_total{capability,provider,to,reason}` and the state set
///   `parley_provider_health{capability,provider,status}` (1 for the current status);
/// - `parley_tokens_total{provider,kind}` (`input`, `output`);
/// - `parley_chat_relays_total{lane}`: chat completions passed through to their provider as
///   they came, on the connection's event loop or by the endpoint;
/// - `parley_cache_requests_total{result}`: chat completions the response cache could answer,
///   `hit` when it did, `miss` when the model answered.
public final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The last reason each provider's health gave, keyed by capability and provider.
    private let reasons = Mutex<[String: String]>([:])
    /// Counters and timers already made, by label and dimensions: making one through the
    /// factory takes a lock and a search of the registry, and the busiest are made for every
    /// request.
    private let counters = Mutex<[HandleKey: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[HandleKey: CoreMetrics.Timer]>([:])
    /// Handles kept of each kind, at most (client-named models make new dimensions).
    private static let keptHandles = 1_024

    private struct HandleKey: Hashable {
        var label: String
        var dimensions: [String]

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
        }
    }

    /// Creates an empty set of metrics.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10), .seconds(30),
            .seconds(60), .seconds(120),
        ]
        self.factory = factory
    }

    /// The Prometheus text exposition of every metric.
    public func render() -> String {
        registry.emitToString()
    }

    /// The counter for `label` and `dimensions`, made once.
    private func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        Self.kept(in: counters, HandleKey(label, dimensions)) { CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory) }
    }

    /// The timer for `label` and `dimensions`, made once.
    private func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        Self.kept(in: timers, HandleKey(label, dimensions)) { CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory) }
    }

    /// The handle kept under `key`, or a new one from `make`, kept.
    private static func kept<Handle: Sendable>(in handles: borrowing Mutex<[HandleKey: Handle]>, _ key: HandleKey, make: () -> Handle) -> Handle {
        if let kept = handles.withLock({ $0[key] }) { return kept }
        let made = make()
        handles.withLock { kept in
            if kept.count >= keptHandles { kept.removeAll() }
            kept[key] = made
        }
        return made
    }

    /// One answered request.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let dimensions = [("route", route), ("method", method), ("status", String(status))]
        counter("parley_http_requests_total", dimensions).increment()
        timer("parley_http_request_duration_seconds", dimensions).recordNanoseconds(Self.nanoseconds(duration))
    }

    /// A request answered by `provider`, after the ones of `chain` before it failed or were skipped.
    func recordAnswer(_ capability: ProviderCapability, provider: ProviderIdentity, chain: [ProviderIdentity]) {
        counter("parley_provider_requests_total", [("capability", capability.rawValue), ("provider", provider.description)]).increment()
        guard let position = chain.firstIndex(of: provider) else { return }
        for passed in chain[..<position] {
            let name = passed.description
            let reason = reasons.withLock { $0["\(capability.rawValue)/\(name)"] }.map(Self.reasonClass) ?? "skipped"
            CoreMetrics.Counter(
                label: "parley_fallbacks_total",
                dimensions: [("capability", capability.rawValue), ("provider", name), ("reason", reason)], factory: factory
            ).increment()
        }
    }

    /// What a chat completion relayed on the event loop counts on, made once per route: the
    /// same series ``recordAnswer(_:provider:chain:)``, ``recordRelay(onEventLoop:)``,
    /// ``recordTokens(_:provider:)`` and ``recordRequest(route:method:status:duration:)`` count
    /// on for a 200 from a provider that heads its chain.
    struct RelayTally: Sendable {
        fileprivate let route: String
        fileprivate let provider: ProviderIdentity
        fileprivate let chain: [ProviderIdentity]
        fileprivate let answers: CoreMetrics.Counter
        fileprivate let relays: CoreMetrics.Counter
        fileprivate let inputTokens: CoreMetrics.Counter
        fileprivate let outputTokens: CoreMetrics.Counter
        fileprivate let requests: CoreMetrics.Counter
        fileprivate let durations: CoreMetrics.Timer
    }

    /// The tally of chat completions `provider` (at the head of `chain`, or after it) answers
    /// relayed on the event loop at `route`.
    func relayTally(provider: ProviderIdentity, chain: [ProviderIdentity], route: String) -> RelayTally {
        let name = provider.description
        let ok = [("route", route), ("method", "POST"), ("status", "200")]
        return RelayTally(
            route: route, provider: provider, chain: chain,
            answers: counter("parley_provider_requests_total", [("capability", ProviderCapability.languageModel.rawValue), ("provider", name)]),
            relays: counter("parley_chat_relays_total", [("lane", "event_loop")]),
            inputTokens: counter("parley_tokens_total", [("provider", name), ("kind", "input")]),
            outputTokens: counter("parley_tokens_total", [("provider", name), ("kind", "output")]),
            requests: counter("parley_http_requests_total", ok), durations: timer("parley_http_request_duration_seconds", ok))
    }

    /// One chat completion relayed on the event loop and answered with `status`, counted as
    /// the usual way counts it.
    func recordRelayed(_ tally: RelayTally, status: Int, usage: Usage?, duration: Duration) {
        if tally.chain.first == tally.provider {
            tally.answers.increment()
        } else {
            recordAnswer(.languageModel, provider: tally.provider, chain: tally.chain)
        }
        tally.relays.increment()
        if let usage {
            if usage.inputTokens > 0 { tally.inputTokens.increment(by: usage.inputTokens) }
            if usage.outputTokens > 0 { tally.outputTokens.increment(by: usage.outputTokens) }
        }
        if status == 200 {
            tally.requests.increment()
            tally.durations.recordNanoseconds(Self.nanoseconds(duration))
        } else {
            recordRequest(route: tally.route, method: "POST", status: status, duration: duration)
        }
    }

    /// Tokens a language model read and wrote.
    func recordTokens(_ usage: Usage, provider: ProviderIdentity) {
        let name = provider.description
        if usage.inputTokens > 0 { counter("parley_tokens_total", [("provider", name), ("kind", "input")]).increment(by: usage.inputTokens) }
        if usage.outputTokens > 0 { counter("parley_tokens_total", [("provider", name), ("kind", "output")]).increment(by: usage.outputTokens) }
    }

    /// A chat completion passed through to its provider as it came: on the connection's event
    /// loop (`event_loop`, see ``ChatRelayHandler``) or by the endpoint (`task`).
    func recordRelay(onEventLoop: Bool) {
        counter("parley_chat_relays_total", [("lane", onEventLoop ? "event_loop" : "task")]).increment()
    }

    /// A chat completion the response cache could answer: from the cache (`hit`) or not.
    func recordCacheRequest(hit: Bool) {
        counter("parley_cache_requests_total", [("result", hit ? "hit" : "miss")]).increment()
    }

    /// A provider's current health, as a state set.
    func recordHealth(_ capability: ProviderCapability, provider: String, status: String) {
        for candidate in ["healthy", "degraded", "down", "recovering"] {
            CoreMetrics.Gauge(
                label: "parley_provider_health",
                dimensions: [("capability", capability.rawValue), ("provider", provider), ("status", candidate)], factory: factory
            )
            .record(candidate == status ? 1 : 0)
        }
    }

    /// A realtime session began.
    func realtimeSessionOpened() {
        CoreMetrics.Counter(label: "parley_realtime_sessions_total", factory: factory).increment()
        CoreMetrics.Meter(label: "parley_realtime_sessions_active", factory: factory).increment()
    }

    /// A realtime session ended.
    func realtimeSessionClosed() {
        CoreMetrics.Meter(label: "parley_realtime_sessions_active", factory: factory).decrement()
    }

    /// A change of a provider's health reported by the runtime.
    func recordHealthChange(_ change: Runtime<ContinuousClock>.HealthChange) {
        let provider = change.change.provider
        reasons.withLock { $0["\(change.capability.rawValue)/\(provider)"] = change.change.reason }
        CoreMetrics.Counter(
            label: "parley_provider_health_changes_total",
            dimensions: [
                ("capability", change.capability.rawValue), ("provider", provider), ("to", change.change.to.rawValue),
                ("reason", Self.reasonClass(change.change.reason)),
            ], factory: factory
        ).increment()
        recordHealth(change.capability, provider: provider, status: change.change.to.rawValue)
    }

    /// A short, bounded label for a failure's reason (the full text is in the log and `/health`).
    static func reasonClass(_ reason: String) -> String {
        let text = reason.lowercased()
        if text.contains("recovered") || text.contains("cool-down over") { return "recovered" }
        if text.contains("unreachable") || text.contains("could not be reached") || text.contains("refused") { return "unreachable" }
        if text.contains("api key") || text.contains("credentials") { return "authentication" }
        if text.contains("rate limit") || text.contains("429") { return "rate_limited" }
        if text.contains("timed out") || text.contains("within") { return "timeout" }
        if text.contains("resting") { return "resting" }
        if text.contains("not configured") { return "not_configured" }
        if text.contains("model missing") { return "missing_model" }
        if text.contains("resources") { return "resources" }
        return "error"
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
