import Logging
import ParleyRuntime
import ServiceLifecycle

/// Runs beside the HTTP server: probes the configured cloud and self-hosted providers in the
/// background (so a recovered one comes back without a request paying for the check), and
/// feeds every health change to the metrics. Stops probing on graceful shutdown.
struct ServerMonitor: Service, CustomStringConvertible {
    let environment: ServerEnvironment

    var description: String { "ServerMonitor" }

    func run() async throws {
        let runtime = environment.runtime
        let changes = await runtime.healthChanges()
        if let interval = environment.configuration.probeInterval { await runtime.startProbing(every: interval) }
        for capability in await runtime.report() {
            for entry in capability.chain where entry.configured {
                environment.metrics.recordHealth(capability.capability, provider: entry.provider, status: entry.health)
            }
        }
        for await change in changes.cancelOnGracefulShutdown() {
            environment.metrics.recordHealthChange(change)
        }
        await runtime.stopProbing()
    }
}
