/// Which provider serves a capability.
public enum ProviderSelection: Sendable, Hashable, CustomStringConvertible {
    /// The chain: every configured cloud and self-hosted provider in the catalog's order, then
    /// the on-device engine, falling back from one to the next with a warning.
    case auto
    /// Only the on-device engine.
    case local
    /// One provider of the catalog by name (`openai`, `deepgram`, …), optionally at another
    /// base URL or with another model.
    case named(String, baseURL: String? = nil, model: String? = nil)

    /// Parses a command-line or settings value: `auto`, `local`, or a provider name.
    public init(_ name: String, baseURL: String? = nil, model: String? = nil) {
        switch name {
        case "auto" where baseURL == nil && model == nil: self = .auto
        case "local" where baseURL == nil && model == nil: self = .local
        default: self = .named(name, baseURL: baseURL, model: model)
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .local: return "local"
        case .named(let name, _, _): return name
        }
    }
}
