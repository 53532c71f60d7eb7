import Configuration
import Foundation
import ParleyCloud
import ParleyCore
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
            if let value = reader.string(forKey: key, isSecret: name.hasSuffix("_KEY")), !value.isEmpty {
                values[name] = value
            }
        }
        return Settings(values: values)
    }
}
