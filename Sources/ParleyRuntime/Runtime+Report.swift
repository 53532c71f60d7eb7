import ParleyCore

/// One provider as `parley doctor` and the server's `/health` show it.
public struct ProviderReport: Sendable, Equatable, Encodable {
    /// The provider (name and model), as chains and reports name it.
    public var provider: String
    /// Its name in the catalog.
    public var name: String
    /// Where it runs.
    public var placement: ProviderPlacement
    /// Whether requests stay on this machine.
    public var local: Bool
    /// Whether the settings put it in the chain.
    public var configured: Bool
    /// Whether it can serve now.
    public var available: Bool
    /// Why (or why not).
    public var reason: String
    /// What to do so that it can serve.
    public var remedy: String?
    /// Its circuit breaker's view.
    public var health: String

    enum CodingKeys: String, CodingKey {
        case provider, name, placement, local, configured, available, reason, remedy, health
    }
}

/// One capability's chain as reports show it.
public struct CapabilityReport: Sendable, Equatable, Encodable {
    /// The capability (`LLM`, `STT`, `TTS`, `VAD`).
    public var capability: ProviderCapability
    /// Every provider of the catalog, in chain order, configured or not.
    public var chain: [ProviderReport]
    /// The provider a request would use now.
    public var uses: String?
}

extension Runtime {
    /// Every capability's providers in the order the chains try them, each with whether it is
    /// configured, whether it can serve and why, and its health: what `parley doctor` prints.
    public func report() async -> [CapabilityReport] {
        var reports: [CapabilityReport] = []
        for capability in ProviderCapability.allCases {
            let health = health(of: capability)
            var chain: [ProviderReport] = []
            for entry in catalog.entries(for: capability) {
                let provider = entry.make(ProviderContext(settings: settings, engines: engines, paths: paths))
                let configured = entry.isConfigured(in: settings)
                let availability: Availability = configured ? await provider.availability() : .unsupported(reason: "not configured")
                let name = provider.identity.description
                let status = await health.status(of: name)
                chain.append(
                    ProviderReport(
                        provider: name, name: entry.name, placement: entry.placement, local: provider.identity.isLocal,
                        configured: configured, available: configured && availability.isReady && status != .down,
                        reason: configured ? availability.description : "not configured (\(entry.remedy))",
                        remedy: availability.isReady ? nil : (configured ? availability.remedy ?? entry.remedy : entry.remedy),
                        health: status.rawValue))
            }
            reports.append(CapabilityReport(capability: capability, chain: chain, uses: chain.first(where: \.available)?.provider))
        }
        return reports
    }
}
