/// A failure of a provider while serving a request.
///
/// The cases separate what a fallback chain treats differently: configuration problems
/// (skip the provider), transient faults (retry or fail over), and bad input (report it).
public enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider cannot serve (its availability was not ready).
    case unavailable(provider: String, Availability)
    /// The input cannot be processed by any provider (e.g. empty audio or text).
    case invalidInput(String)
    /// The engine failed while working; `detail` comes from the engine.
    case engineFailure(provider: String, detail: String)
    /// The request ran out of room, e.g. the prompt does not fit the model's context window.
    case contextOverflow(provider: String, needed: Int, available: Int)

    public var description: String {
        switch self {
        case .unavailable(let provider, let availability):
            return "\(provider) is not available: \(availability)."
        case .invalidInput(let detail):
            return detail
        case .engineFailure(let provider, let detail):
            return "\(provider) failed: \(detail)."
        case .contextOverflow(let provider, let needed, let available):
            return "\(provider): the prompt needs \(needed) tokens but the context holds \(available); shorten the conversation or use a larger context."
        }
    }
}
