import Foundation
import ParleyRuntime

/// Which provider a request's `model` names. Clients send whatever model their SDK or
/// configuration says, so every name is accepted:
///
/// - a catalog name for the capability (`local`, `openai`, `anthropic`, `ollama`, `deepgram`,
///   …) selects that provider alone;
/// - `provider/model` (e.g. `openai/gpt-4o`, `ollama/llama3.2`) selects it with that model;
/// - `auto`, nothing, or any other name (`gpt-4o-mini`, `whisper-1`, `tts-1`) is the
///   capability's fallback chain.
enum ModelResolution {
    static func selection(for model: String?, capability: ProviderCapability, catalog: ProviderCatalog) -> ProviderSelection {
        guard let model = model?.trimmingCharacters(in: .whitespaces), !model.isEmpty else { return .auto }
        let names = catalog.selectionNames(for: capability)
        if names.contains(model) { return ProviderSelection(model) }
        if let slash = model.firstIndex(of: "/") {
            let provider = String(model[..<slash])
            let name = String(model[model.index(after: slash)...])
            guard names.contains(provider), provider != "auto" else { return .auto }
            if provider == "local" || name.isEmpty { return ProviderSelection(provider) }
            return .named(provider, model: name)
        }
        return .auto
    }
}
