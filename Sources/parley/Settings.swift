import Configuration
import Foundation
import ParleyCloud
import ParleyCore
import ParleyStore
import SystemPackage

/// Parley's settings in one place, read with swift-configuration: environment variables
/// first, then the settings file (`config.json` in the data directory, or the file
/// `PARLEY_CONFIG` names). Every setting keeps its provider's conventional variable name; in
/// the file the name is a path of lower-case keys, so `OPENAI_API_KEY` is
/// `{"openai": {"api": {"key": "…"}}}` and `OLLAMA_HOST` is `{"ollama": {"host": "…"}}`.
/// Keys are read as secrets, so an access log never shows them.
struct Settings {
    /// The settings Parley reads.
    static let names = [
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL",
        "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
        "OLLAMA_HOST", "OLLAMA_MODEL",
        "DEEPGRAM_API_KEY", "DEEPGRAM_BASE_URL",
        "ASSEMBLYAI_API_KEY", "ASSEMBLYAI_BASE_URL",
        "ELEVENLABS_API_KEY", "ELEVENLABS_BASE_URL",
        "PIPER_BASE_URL",
        "PARLEY_DATABASE", "PARLEY_BUDGET_MONTHLY", "PARLEY_BUDGET_ALERT",
        "PARLEY_PRICE_OPENAI_INPUT", "PARLEY_PRICE_OPENAI_OUTPUT",
        "PARLEY_PRICE_ANTHROPIC_INPUT", "PARLEY_PRICE_ANTHROPIC_OUTPUT",
    ]

    /// Why the settings could not be read.
    struct Failure: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "The settings file \(file) could not be read (\(reason)); fix it or remove it." }
    }

    /// The resolved settings by variable name, on top of the rest of the environment.
    let values: [String: String]

    /// The cloud and self-hosted providers these settings configure.
    var cloud: CloudProviders { CloudProviders(environment: values) }

    /// The conversation database (`PARLEY_DATABASE`, else `parley.sqlite` in the data directory).
    var database: URL {
        values["PARLEY_DATABASE"].map { URL(fileURLWithPath: $0) } ?? ConversationStore.defaultURL(paths: .current(environment: values))
    }

    /// The monthly budget in US dollars (`PARLEY_BUDGET_MONTHLY`) and the spending that
    /// raises an alert (`PARLEY_BUDGET_ALERT`, three quarters of the budget unless set).
    var budget: (monthly: Double, alert: Double)? {
        guard let monthly = values["PARLEY_BUDGET_MONTHLY"].flatMap(Double.init), monthly > 0 else { return nil }
        return (monthly, values["PARLEY_BUDGET_ALERT"].flatMap(Double.init) ?? monthly * 0.75)
    }

    /// Prices per million tokens (`PARLEY_PRICE_<PROVIDER>_INPUT` / `_OUTPUT`) for `providers`,
    /// keyed as the spending tracker names them. Providers without a price are free.
    func prices(for providers: [any LanguageModelProvider]) -> PriceTable {
        var table = PriceTable()
        for provider in providers {
            let name = provider.identity.name.uppercased()
            let input = values["PARLEY_PRICE_\(name)_INPUT"].flatMap(Double.init)
            let output = values["PARLEY_PRICE_\(name)_OUTPUT"].flatMap(Double.init)
            guard input != nil || output != nil else { continue }
            table.prices[provider.identity.description] = Price(perMillionInputTokens: input ?? 0, perMillionOutputTokens: output ?? 0)
        }
        return table
    }

    /// The settings file for `environment`.
    static func file(environment: [String: String]) -> URL {
        if let explicit = environment["PARLEY_CONFIG"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        return ParleyPaths.current(environment: environment).home.appendingPathComponent("config.json")
    }

    /// Reads the settings: each variable from the environment, else from the file.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Settings {
        var providers: [any ConfigProvider] = [
            // A variable set to nothing counts as unset, so the file can still provide it.
            EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty },
                                         secretsSpecifier: .dynamic { name, _ in name.hasSuffix("_KEY") })
        ]
        let file = Self.file(environment: environment)
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file.path)))
            } catch {
                throw Failure(file: file.path, reason: "\(error)")
            }
        }
        let reader = ConfigReader(providers: providers)
        var values = environment
        for name in names {
            values[name] = nil
            let key = ConfigKey(name.lowercased().split(separator: "_").map(String.init))
            // A number in the file (a budget, a price) is read as a number.
            let value = reader.string(forKey: key, isSecret: name.hasSuffix("_KEY"))
                ?? reader.int(forKey: key).map(String.init)
                ?? reader.double(forKey: key).map { String($0) }
            if let value, !value.isEmpty { values[name] = value }
        }
        return Settings(values: values)
    }
}
