import ArgumentParser
import Foundation
import Logging
import ParleyCloud
import ParleyCore
import ParleyLocal
import ParleyStore

/// Options choosing the language model.
struct ModelSelection: ParsableArguments {
    @Option(help: "The language model: auto (configured cloud and self-hosted providers, then on-device), local, openai, anthropic or ollama.")
    var provider: String = "auto"

    @Option(name: .customLong("base-url"), help: "The provider's base URL, e.g. http://127.0.0.1:8080/v1 for an OpenAI-compatible server.")
    var baseURL: String?

    @Option(name: .customLong("remote-model"), help: "The model name at the provider.")
    var remoteModel: String?

    @Option(name: .customLong("small-model"), help: "A smaller GGUF model to use on-device while memory is short or the device too hot for the main one.")
    var smallModel: String?

    func validate() throws {
        guard ["auto", "local", "openai", "anthropic", "ollama"].contains(provider) else {
            throw ValidationError("Unknown provider \(provider); use auto, local, openai, anthropic or ollama.")
        }
        if baseURL != nil, ["auto", "local"].contains(provider) {
            throw ValidationError("--base-url needs --provider openai, anthropic or ollama.")
        }
        if smallModel != nil, provider != "auto" {
            throw ValidationError("--small-model works with --provider auto.")
        }
    }

    /// The language model to use: one provider, or the fallback chain ending on-device —
    /// routed under the monthly budget when one is set.
    func languageModel(local: LlamaLanguageModel, settings: Settings) async throws -> any LanguageModelProvider {
        let cloud = settings.cloud
        switch provider {
        case "local":
            return local
        case "auto":
            let configured = cloud.configuredLanguageModels()
            var onDevice: [any LanguageModelProvider] = [local]
            if let smallModel {
                // The main model steps aside (and is unloaded if need be) while the machine
                // is short of memory or too hot; the small one answers meanwhile.
                let size = (try? FileManager.default.attributesOfItem(atPath: local.configuration.modelPath)[.size] as? NSNumber)?.uint64Value ?? 0
                let small = LlamaLanguageModel(configuration: .init(
                    modelPath: smallModel, contextLength: local.configuration.contextLength, threads: local.configuration.threads))
                onDevice = [ResourceGuardedLanguageModel(local, modelBytes: size, monitor: SystemResourceMonitor()), small]
            }
            let providers = configured + onDevice
            guard providers.count > 1 else { return local }
            let clock = ContinuousClock()
            let logger = Logger(label: "parley.chain.llm")
            if let budget = settings.budget, !configured.isEmpty {
                // Charges go to the conversation database, so the month's spending holds
                // across runs; past the budget only free (on-device) providers are used.
                let spending = SpendingTracker(monthlyBudget: budget.monthly, alertThreshold: budget.alert,
                                               prices: settings.prices(for: configured),
                                               ledger: try ConversationStore(path: settings.database))
                try await spending.restore()
                return RoutedLanguageModel(providers: providers, policy: RoutingPolicy(defaultChain: providers.map(\.identity.description)),
                                           health: ProviderHealth(clock: clock), clock: clock, spending: spending, logger: logger)
            }
            return LanguageModelChain(providers: providers, health: ProviderHealth(clock: clock), clock: clock, logger: logger)
        default:
            return cloud.languageModel(named: provider, baseURL: baseURL, model: remoteModel) ?? local
        }
    }
}

/// The speech-to-text to use: a named provider, or the configured cloud providers then
/// whisper.cpp.
func speechToText(_ name: String, baseURL: String?, local: WhisperSpeechToText, cloud: CloudProviders) -> any SpeechToTextProvider {
    switch name {
    case "local": return local
    case "auto":
        let configured = cloud.configuredSpeechToText()
        guard !configured.isEmpty else { return local }
        return SpeechToTextChain(providers: configured + [local], health: ProviderHealth(clock: ContinuousClock()))
    default:
        return cloud.speechToText(named: name, baseURL: baseURL) ?? local
    }
}

/// The text-to-speech to use: a named provider, or the configured cloud and self-hosted
/// providers then espeak-ng.
func textToSpeech(_ name: String, baseURL: String?, local: EspeakTextToSpeech, cloud: CloudProviders) -> any TextToSpeechProvider {
    switch name {
    case "local": return local
    case "auto":
        let configured = cloud.configuredTextToSpeech()
        guard !configured.isEmpty else { return local }
        return TextToSpeechChain(providers: configured + [local], health: ProviderHealth(clock: ContinuousClock()))
    default:
        return cloud.textToSpeech(named: name, baseURL: baseURL) ?? local
    }
}

/// Checks that each provider a command needs can serve before any work starts, so a missing
/// model is one clear sentence instead of a failure half-way.
func ensureReady(_ providers: [any Provider]) async throws {
    for provider in providers {
        let availability = await provider.availability()
        guard availability.isReady else {
            throw ProviderError.unavailable(provider: provider.identity.description, commandLineRemedy(availability, of: provider))
        }
    }
}

/// The libraries say what is missing and what kind of thing fixes it; on the command line the
/// fix is the setup script or a flag naming another file.
func commandLineRemedy(_ availability: Availability, of provider: any Provider) -> Availability {
    guard case .missingModel(let path, _) = availability else { return availability }
    switch provider {
    case is LlamaLanguageModel: return .missingModel(path: path, hint: "run scripts/setup or pass --model FILE.gguf")
    case is WhisperSpeechToText: return .missingModel(path: path, hint: "run scripts/setup or pass --whisper-model FILE.bin")
    case is SileroVoiceActivityDetector: return .missingModel(path: path, hint: "run scripts/setup to export the Silero weights")
    default: return availability
    }
}
