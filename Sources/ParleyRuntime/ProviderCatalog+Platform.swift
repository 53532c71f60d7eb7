import ParleyAppleSupport
import ParleyCore

extension ProviderCatalog {
    /// The catalog with a platform's own engines added (Apple's, on Apple platforms: the
    /// standard catalog does this), each as an on-device entry of its capability placed after
    /// every cloud and self-hosted entry and before the on-device entries already there, in the
    /// order given.
    ///
    /// The platform's engines lead the on-device ones because they need nothing more: no model
    /// to download, no native library (llama.cpp and whisper.cpp come to Apple platforms only
    /// with the `AppleEngines` trait, and say "not built for this platform" without it). An app
    /// that prefers an engine of Parley's selects it by name.
    public func adding(platform providers: [PlatformProvider]) -> ProviderCatalog {
        var entries = self.entries
        var added: [(ProviderCapability, String)] = []
        for provider in providers {
            let entry = ProviderEntry(platform: provider)
            let isNew = { (other: ProviderEntry) in !added.contains { $0.0 == other.capability && $0.1 == other.name } }
            let index =
                entries.firstIndex { $0.capability == entry.capability && $0.placement == .onDevice && isNew($0) }
                ?? entries.lastIndex { $0.capability == entry.capability }.map { $0 + 1 }
                ?? entries.endIndex
            entries.insert(entry, at: index)
            added.append((entry.capability, entry.name))
        }
        return ProviderCatalog(entries: entries)
    }
}

extension ProviderEntry {
    /// The on-device entry of a platform's engine: always in its chain (no setting needed), its
    /// factory reading settings from the context.
    init(platform provider: PlatformProvider) {
        let capability: ProviderCapability
        let factory: ProviderFactory
        switch provider.factory {
        case .languageModel(let make):
            capability = .languageModel
            factory = .languageModel { context in make { context.settings.value($0) } }
        case .speechToText(let make):
            capability = .speechToText
            factory = .speechToText { context in make { context.settings.value($0) } }
        case .textToSpeech(let make):
            capability = .textToSpeech
            factory = .textToSpeech { context in make { context.settings.value($0) } }
        }
        self.init(
            capability: capability, name: provider.name, placement: .onDevice, variables: provider.variables,
            defaultModel: provider.defaultModel, remedy: provider.remedy, factory: factory)
    }
}
