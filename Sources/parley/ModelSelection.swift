import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// Options choosing the language model.
struct ModelSelection: ParsableArguments {
    @Option(
        help:
            "The language model: auto (configured cloud and self-hosted providers, then on-device), local, or a provider: \(ProviderCatalog.standard.selectionNames(for: .languageModel).dropFirst(2).joined(separator: ", "))."
    )
    var provider: String = "auto"

    @Option(name: .customLong("base-url"), help: "The provider's base URL, e.g. http://127.0.0.1:8080/v1 for an OpenAI-compatible server.")
    var baseURL: String?

    @Option(name: .customLong("remote-model"), help: "The model name at the provider.")
    var remoteModel: String?

    @Option(name: .customLong("small-model"), help: "A smaller GGUF model to use on-device while memory is short or the device too hot for the main one.")
    var smallModel: String?

    func validate() throws {
        try validateProvider(provider, for: .languageModel)
        if baseURL != nil, ["auto", "local"].contains(provider) {
            throw ValidationError("--base-url needs --provider with a provider's name.")
        }
        if smallModel != nil, provider != "auto" {
            throw ValidationError("--small-model works with --provider auto.")
        }
    }

    /// The selection these flags make.
    var selection: ProviderSelection { ProviderSelection(provider, baseURL: baseURL, model: remoteModel) }
}

/// Refuses a provider name the catalog does not know for `capability`, naming the ones it does.
func validateProvider(_ name: String, for capability: ProviderCapability) throws {
    let known = ProviderCatalog.standard.selectionNames(for: capability)
    guard known.contains(name) else {
        throw ValidationError("Unknown provider \(name); use \(known.joined(separator: ", ")).")
    }
}
