import Configuration
import Foundation
import ParleyCore
import ParleyTasks
import ParleyStore
import SystemPackage

/// Parley's settings in one place, read with swift-configuration from a `ConfigReader`:
/// environment variables first, then the settings file (`config.json` in the data directory,
/// or the file `PARLEY_CONFIG` names). Every setting keeps its provider's conventional variable
/// name; in the file the name is a path of lower-case keys, so `OPENAI_API_KEY` is
/// `{"openai": {"api": {"key": "…"}}}` and `OLLAMA_HOST` is `{"ollama": {"host": "…"}}`.
/// Keys are read as secrets, so an access log never shows them.
public struct RuntimeSettings: Sendable {
    /// The settings Parley reads: every variable the provider catalog names, and Parley's own.
    public static let names: [String] = {
        var names: [String] = []
        for entry in ProviderCatalog.standard.entries {
            for variable in entry.variables where !names.contains(variable) { names.append(variable) }
        }
        return names + [
            "PARLEY_DATABASE", "PARLEY_BUDGET_MONTHLY", "PARLEY_BUDGET_ALERT",
            "PARLEY_PRICE_OPENAI_INPUT", "PARLEY_PRICE_OPENAI_OUTPUT",
            "PARLEY_PRICE_ANTHROPIC_INPUT", "PARLEY_PRICE_ANTHROPIC_OUTPUT",
            // The bearer keys `parley serve` accepts (comma-separated; a secret).
            "PARLEY_API_KEYS",
            // Per-key limits of `parley serve`: requests and tokens per minute (unset: none).
            "PARLEY_RATE_LIMIT_RPM", "PARLEY_RATE_LIMIT_TPM",
            // The PostgreSQL database several `parley serve` instances share (its password is a
            // secret), and how long the server keeps cached responses (seconds; 0 turns it off).
            "PARLEY_DATABASE_URL", "PARLEY_CACHE_TTL",
            // The most connections each server instance opens to that database (default 20).
            "PARLEY_DATABASE_POOL_SIZE",
            // The on-device language model (a catalog id or a GGUF path; `parley models use`
            // writes it), and the package index models are pulled from.
            "PARLEY_LLM_MODEL", "PARLEY_PYPI_URL",
            // The on-device embedding model (a GGUF path; all-MiniLM-L6-v2 from setup unless set).
            "PARLEY_EMBEDDING_MODEL",
            // The on-device speech model for English: a catalog id (`whisper-base.en`,
            // `moonshine-base`, …) or a whisper.cpp file; unset, the machine chooses
            // (ParleyModels' SpeechModelChoice).
            "PARLEY_STT_MODEL",
            // Provider order per learning task, e.g. `mind_map=openai,on-device; simplification=on-device`.
            "PARLEY_TASK_ORDER",
            // Google Drive, Calendar and Gmail (parley google): the OAuth client (its secret is
            // a secret), base URLs for a local stand-in, and what the server syncs and how often.
            "GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET", "GOOGLE_API_BASE_URL", "GOOGLE_OAUTH_BASE_URL",
            "PARLEY_GOOGLE_DRIVE_FOLDER", "PARLEY_GOOGLE_CALENDAR", "PARLEY_GOOGLE_GMAIL_QUERY", "PARLEY_GOOGLE_SYNC_INTERVAL",
        ]
    }()

    /// Whether setting `name` is a secret, which an access log never shows: API keys, and the
    /// database URL (it holds a password).
    public static func isSecret(_ name: String) -> Bool {
        name.hasSuffix("_KEY") || name.hasSuffix("_KEYS") || name.hasSuffix("_SECRET") || name == "PARLEY_DATABASE_URL"
    }

    /// Why the settings could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// The settings file.
        public var file: String
        /// What went wrong.
        public var reason: String
        public var description: String { "The settings file \(file) could not be read (\(reason)); fix it or remove it." }
    }

    /// The resolved settings by variable name, on top of the rest of the environment.
    public let values: [String: String]
    /// The settings file that was (or would have been) read.
    public let file: URL

    /// Settings from explicit values (tests, host apps that keep their own settings).
    public init(values: [String: String], file: URL? = nil) {
        self.values = values
        self.file = file ?? Self.file(environment: values)
    }

    /// Reads every setting Parley knows from `reader`; `environment` supplies what is not a
    /// setting (the data directory's location, `HOME`).
    public init(reader: ConfigReader, environment: [String: String] = ProcessInfo.processInfo.environment) {
        var values = environment
        for name in Self.names {
            values[name] = nil
            let key = ConfigKey(name.lowercased().split(separator: "_").map(String.init))
            let secret = Self.isSecret(name)
            // A number in the file (a budget, a price) is read as a number.
            let value =
                reader.string(forKey: key, isSecret: secret)
                ?? reader.int(forKey: key).map(String.init)
                ?? reader.double(forKey: key).map { String($0) }
            if let value, !value.isEmpty { values[name] = value }
        }
        self.init(values: values, file: Self.file(environment: environment))
    }

    /// Reads the settings: each variable from the environment, else from the settings file.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> RuntimeSettings {
        var providers: [any ConfigProvider] = [
            // A variable set to nothing counts as unset, so the file can still provide it.
            EnvironmentVariablesProvider(
                environmentVariables: environment.filter { !$0.value.isEmpty },
                secretsSpecifier: .dynamic { name, _ in Self.isSecret(name) })
        ]
        let file = Self.file(environment: environment)
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file.path)))
            } catch {
                throw Failure(file: file.path, reason: "\(error)")
            }
        }
        return RuntimeSettings(reader: ConfigReader(providers: providers), environment: environment)
    }

    /// The settings file for `environment`: `PARLEY_CONFIG`, else `config.json` in the data directory.
    public static func file(environment: [String: String]) -> URL {
        if let explicit = environment["PARLEY_CONFIG"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        return ParleyPaths.current(environment: environment).home.appendingPathComponent("config.json")
    }

    /// The value of setting `name`, or `nil` when it is unset or blank.
    public func value(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// The languages Tesseract reads images in (`PARLEY_OCR_LANGUAGES`, Tesseract codes joined
    /// with `+`, e.g. `eng+deu`; `eng` unless set).
    public var ocrLanguages: String { value("PARLEY_OCR_LANGUAGES") ?? "eng" }

    /// The data directory these settings point at.
    public var paths: ParleyPaths { .current(environment: values) }

    /// The conversation database (`PARLEY_DATABASE`, else `parley.sqlite` in the data directory).
    public var database: URL {
        value("PARLEY_DATABASE").map { URL(fileURLWithPath: $0) } ?? ConversationStore.defaultURL(paths: paths)
    }

    /// The shared PostgreSQL database that `parley serve` keeps conversations in
    /// (`PARLEY_DATABASE_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE`), with the pool size
    /// `PARLEY_DATABASE_POOL_SIZE` gives, or `nil` for the local SQLite file. Show it with its `description`, which leaves the password out.
    ///
    /// - Throws: `StoreError.invalidDatabaseURL` when the setting is not such a URL,
    ///   `StoreError.invalidPoolSize` when the pool size is not a whole number from 1 to 1000.
    public func databaseURL() throws(StoreError) -> DatabaseURL? {
        guard let text = value("PARLEY_DATABASE_URL") else { return nil }
        var url = try DatabaseURL(parsing: text)
        if let size = value("PARLEY_DATABASE_POOL_SIZE") {
            guard let poolSize = DatabaseURL.poolSize(size) else { throw .invalidPoolSize(size) }
            url.poolSize = poolSize
        }
        return url
    }

    /// How long the server answers an identical request from its cache (`PARLEY_CACHE_TTL`,
    /// in whole seconds; one hour unless set; 0 turns the cache off), or `nil` when the
    /// setting is not a whole number of seconds.
    public var responseCacheTTL: Duration? {
        guard let text = value("PARLEY_CACHE_TTL") else { return Self.defaultResponseCacheTTL }
        guard let seconds = Int64(text), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }

    /// How long cached responses are served when `PARLEY_CACHE_TTL` is not set: one hour.
    public static let defaultResponseCacheTTL = Duration.seconds(3_600)

    /// A monthly spending budget.
    public struct Budget: Sendable, Equatable {
        /// US dollars a month.
        public var monthly: Double
        /// The spending that raises an alert.
        public var alert: Double
    }

    /// The provider order per learning task: the standard one (`TaskPolicy.standard`) with
    /// the orders `PARLEY_TASK_ORDER` sets.
    public func taskPolicy() throws(TaskPolicyError) -> TaskPolicy {
        guard let text = value("PARLEY_TASK_ORDER") else { return .standard }
        return try TaskPolicy(parsing: text)
    }

    /// The monthly budget in US dollars (`PARLEY_BUDGET_MONTHLY`) and the spending that
    /// raises an alert (`PARLEY_BUDGET_ALERT`, three quarters of the budget unless set).
    public var budget: Budget? {
        guard let monthly = value("PARLEY_BUDGET_MONTHLY").flatMap(Double.init), monthly > 0 else { return nil }
        return Budget(monthly: monthly, alert: value("PARLEY_BUDGET_ALERT").flatMap(Double.init) ?? monthly * 0.75)
    }

    /// Prices per million tokens (`PARLEY_PRICE_<PROVIDER>_INPUT` / `_OUTPUT`) for `providers`,
    /// keyed as the spending tracker names them. Providers without a price are free.
    public func prices(for providers: [any LanguageModelProvider]) -> PriceTable {
        var table = PriceTable()
        for provider in providers {
            let name = provider.identity.name.uppercased()
            let input = value("PARLEY_PRICE_\(name)_INPUT").flatMap(Double.init)
            let output = value("PARLEY_PRICE_\(name)_OUTPUT").flatMap(Double.init)
            guard input != nil || output != nil else { continue }
            table.prices[provider.identity.description] = Price(perMillionInputTokens: input ?? 0, perMillionOutputTokens: output ?? 0)
        }
        return table
    }
}
