import Foundation
import Hummingbird
import ParleyRuntime

/// `GET /health`: liveness (always 200 while the server answers) and each capability's chain
/// as `parley doctor` shows it: every provider with whether it is configured and available,
/// why, and its health (healthy, degraded, down, recovering); and whether the other endpoints
/// need a key.
///
/// Open without a key, it says only whether the server is up and whether a key is needed: the
/// providers' detail (base URLs, model paths, upstream errors) goes only to a caller with a key
/// (or to everyone on a server without keys). The report is made at most once every few
/// seconds however often it is asked for, so that asking cannot make the server probe a dead
/// provider again and again.
struct HealthEndpoint: Sendable {
    let environment: ServerEnvironment
    let reports: HealthReports

    struct Document: Encodable {
        /// `ok` when every capability has a provider that can serve, else `degraded`.
        var status: String
        var uptime_seconds: Int
        /// Whether the other endpoints need `Authorization: Bearer KEY` (so that a client, such
        /// as the browser page, can ask for a key before it is refused).
        var api_key_required: Bool
        /// Each capability's chain; left out for a caller without a key.
        var capabilities: [CapabilityReport]?
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/health") { _, context in
            let report = await reports.current()
            let served = report.filter { $0.capability != .voiceActivity }
            let status = served.allSatisfy { $0.uses != nil } ? "ok" : "degraded"
            let detailed = !environment.admission.requiresKeys || context.keyIndex != nil
            return ModelsEndpoint.json(
                Document(
                    status: status, uptime_seconds: ServerEnvironment.now - environment.started,
                    api_key_required: environment.admission.requiresKeys, capabilities: detailed ? report : nil))
        }
    }
}

/// The runtime's report of its providers, made at most once per ``lifetime``: callers within it
/// share the last one (or the one being made).
actor HealthReports {
    private let runtime: Runtime<ContinuousClock>
    private let lifetime: Duration
    private var last: (made: ContinuousClock.Instant, report: [CapabilityReport])?
    private var making: Task<[CapabilityReport], Never>?

    init(runtime: Runtime<ContinuousClock>, lifetime: Duration = .seconds(5)) {
        self.runtime = runtime
        self.lifetime = lifetime
    }

    func current() async -> [CapabilityReport] {
        if let last, ContinuousClock.now - last.made < lifetime { return last.report }
        if let making { return await making.value }
        let runtime = self.runtime
        let task = Task { await runtime.report() }
        making = task
        let report = await task.value
        last = (.now, report)
        making = nil
        return report
    }
}
