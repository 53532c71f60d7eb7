/// One provider as the settings sheet lists it: what the runtime's report says of it
/// (`Runtime.report()`), in plain values so that this module needs no more of Parley than
/// ParleyCore.
public struct ProviderStatus: Sendable, Equatable, Identifiable {
    /// What it serves (`LLM`, `STT`, `TTS`, `VAD`).
    public var capability: String
    /// Its name in the catalog (`apple`, `openai`, `local`, …).
    public var name: String
    /// The provider and model, as chains name it.
    public var provider: String
    /// Where it runs (`cloud`, `self-hosted`, `on-device`).
    public var placement: String
    /// Whether the settings put it in the chain.
    public var configured: Bool
    /// Whether it can serve now.
    public var available: Bool
    /// Why (or why not).
    public var reason: String
    /// What to do so that it can serve.
    public var remedy: String?

    public var id: String { capability + "/" + name }

    /// A provider's status.
    public init(
        capability: String, name: String, provider: String, placement: String, configured: Bool, available: Bool,
        reason: String, remedy: String?
    ) {
        self.capability = capability
        self.name = name
        self.provider = provider
        self.placement = placement
        self.configured = configured
        self.available = available
        self.reason = reason
        self.remedy = remedy
    }
}

/// One capability's providers as the settings sheet shows them: the one in use first in the
/// user's eye, each with a sentence saying why it is or is not used.
public struct ProviderSection: Sendable, Equatable, Identifiable {
    /// One row.
    public struct Row: Sendable, Equatable, Identifiable {
        /// The provider.
        public var status: ProviderStatus
        /// Whether requests go to it now.
        public var inUse: Bool
        /// Why it is used, kept in reserve, or not used.
        public var why: String

        public var id: String { status.id }
    }

    /// The capability's title (`Language model`, …).
    public var title: String
    /// The providers in chain order.
    public var rows: [Row]

    public var id: String { title }

    /// The sections for a report's providers (in chain order within each capability), in the
    /// order the capabilities first appear.
    public static func sections(_ providers: [ProviderStatus]) -> [ProviderSection] {
        var order: [String] = []
        for status in providers where !order.contains(status.capability) { order.append(status.capability) }
        return order.map { capability in
            let chain = providers.filter { $0.capability == capability }
            let used = chain.first(where: \.available)
            return ProviderSection(
                title: title(of: capability),
                rows: chain.map { status in
                    Row(status: status, inUse: status.id == used?.id, why: why(status, used: used))
                })
        }
    }

    static func title(of capability: String) -> String {
        switch capability {
        case "LLM": return "Language model"
        case "STT": return "Speech recognition"
        case "TTS": return "Voice"
        case "VAD": return "Voice detection"
        default: return capability
        }
    }

    static func why(_ status: ProviderStatus, used: ProviderStatus?) -> String {
        let place = status.placement == "on-device" ? "on this device" : status.placement == "cloud" ? "in the cloud" : "on your server"
        if status.id == used?.id { return "In use, \(place)." }
        if !status.configured { return "Not set up" + (status.remedy.map { ": \($0)." } ?? ".") }
        if !status.available {
            let reason = status.reason.hasPrefix("unsupported: ") ? String(status.reason.dropFirst("unsupported: ".count)) : status.reason
            return "Unavailable: \(reason)" + (status.remedy.map { reason.contains($0) ? "." : ". To use it: \($0)." } ?? ".")
        }
        return "Ready, \(place); used if \(used?.provider ?? "the one before it") fails."
    }
}
