/// How a fallback chain treats a provider's failure.
public enum FailureKind: Sendable, Equatable {
    /// The provider is not set up to serve (bad or missing key, model not found): skip it
    /// until it is reconfigured; retrying will not help.
    case configuration
    /// A passing fault (server error, rate limit, transport, timeout, a stream cut short):
    /// fail over now, and try this provider again after `retryAfter` (or its cool-down).
    case transient(retryAfter: Duration?)
    /// The request itself is wrong (e.g. empty input): another provider would refuse it too,
    /// so the error goes to the caller.
    case invalidRequest
}

/// An error that says how a fallback chain should treat it. Errors that do not conform are
/// treated as transient.
public protocol ClassifiedError: Error {
    /// How a fallback chain treats this error.
    var failureKind: FailureKind { get }
}

extension ProviderError: ClassifiedError {
    public var failureKind: FailureKind {
        switch self {
        case .unavailable: return .configuration
        case .invalidInput: return .invalidRequest
        case .engineFailure, .contextOverflow: return .transient(retryAfter: nil)
        }
    }
}

/// The failure kind of any error.
public func failureKind(of error: any Error) -> FailureKind {
    (error as? any ClassifiedError)?.failureKind ?? .transient(retryAfter: nil)
}
