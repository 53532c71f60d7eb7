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
        guard let model = model.map(trimmed), !model.isEmpty else { return .auto }
        if selects(model, capability, catalog) { return ProviderSelection(model) }
        if let slash = model.firstIndex(of: "/") {
            let provider = String(model[..<slash])
            let name = String(model[model.index(after: slash)...])
            guard selects(provider, capability, catalog), provider != "auto" else { return .auto }
            if provider == "local" || name.isEmpty { return ProviderSelection(provider) }
            return .named(provider, model: name)
        }
        return .auto
    }

    /// Whether `name` selects a provider of `capability`: `auto`, `local` or a catalog entry's
    /// name (see ``ProviderCatalog/selectionNames(for:)``), looked up without building the list:
    /// this runs for every request.
    private static func selects(_ name: String, _ capability: ProviderCapability, _ catalog: ProviderCatalog) -> Bool {
        name == "auto" || name == "local" || catalog.entry(capability, named: name) != nil
    }

    /// `model` without surrounding whitespace; a name with none (nearly every one) is returned
    /// as it is, without Foundation's character sets.
    private static func trimmed(_ model: String) -> String {
        guard let first = model.unicodeScalars.first, let last = model.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        else { return model }
        return model.trimmingCharacters(in: .whitespaces)
    }
}
