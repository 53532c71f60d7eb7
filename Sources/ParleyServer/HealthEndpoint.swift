import Foundation
import Hummingbird
import ParleyRuntime

/// `GET /health`: liveness (always 200 while the server answers) and each capability's chain
/// as `parley doctor` shows it: every provider with whether it is configured and available,
/// why, and its health (healthy, degraded, down, recovering); and whether the other endpoints
/// need a key. Open without a key.
struct HealthEndpoint: Sendable {
    let environment: ServerEnvironment

    struct Document: Encodable {
        /// `ok` when every capability has a provider that can serve, else `degraded`.
        var status: String
        var uptime_seconds: Int
        /// Whether the other endpoints need `Authorization: Bearer KEY` (so that a client, such
        /// as the browser page, can ask for a key before it is refused).
        var api_key_required: Bool
        var capabilities: [CapabilityReport]
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/health") { _, _ in
            let report = await environment.runtime.report()
            let served = report.filter { $0.capability != .voiceActivity }
            let status = served.allSatisfy { $0.uses != nil } ? "ok" : "degraded"
            return ModelsEndpoint.json(Document(status: status, uptime_seconds: ServerEnvironment.now - environment.started,
                                               api_key_required: !environment.configuration.apiKeys.isEmpty, capabilities: report))
        }
    }
}
