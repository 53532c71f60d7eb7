/// Whether a provider can serve requests right now, and if not, why.
///
/// Providers report availability without throwing, so that a fallback chain can skip one that
/// cannot serve and say why in a warning.
public enum Availability: Sendable, Equatable, CustomStringConvertible {
    /// Ready to serve.
    case ready
    /// A model file is missing; `hint` says how to get it.
    case missingModel(path: String, hint: String)
    /// An API key is not configured; `variable` names the environment variable to set.
    case missingKey(variable: String)
    /// A server did not answer.
    case serverUnreachable(url: String, reason: String)
    /// The provider cannot run here (platform, missing program, capability).
    case unsupported(reason: String)
    /// The machine is short of what the provider needs right now (memory, thermal headroom);
    /// it may serve again when that passes.
    case insufficientResources(reason: String)

    /// Whether the provider can serve.
    public var isReady: Bool { self == .ready }

    public var description: String {
        switch self {
        case .ready: return "ready"
        case .missingModel(let path, let hint): return "model missing at \(path) (\(hint))"
        case .missingKey(let variable): return "API key not configured (set \(variable))"
        case .serverUnreachable(let url, let reason): return "server \(url) unreachable: \(reason)"
        case .unsupported(let reason): return "unsupported: \(reason)"
        case .insufficientResources(let reason): return "not enough resources: \(reason)"
        }
    }
}
