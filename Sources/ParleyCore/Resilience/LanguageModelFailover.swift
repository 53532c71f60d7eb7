/// What a chain of language models lends a caller that sends a request to its first member by
/// other means than ``LanguageModelProvider/complete(_:)`` (the server passing an OpenAI body
/// through as it came), so that the caller admits, records and fails over as the chain would.
public struct LanguageModelFailover: Sendable {
    /// The health registry the chain consults and reports to.
    public let health: any FailoverHealth
    /// The chain's limit on the wait for the first output.
    public let firstOutput: Duration
    private let remainder: @Sendable (Int) -> any LanguageModelProvider

    /// A failover over `health`; `remainder(n)` is the chain without its first `n` members.
    public init(health: any FailoverHealth, firstOutput: Duration, remainder: @escaping @Sendable (Int) -> any LanguageModelProvider) {
        self.health = health
        self.firstOutput = firstOutput
        self.remainder = remainder
    }

    /// The chain less its first `count` members, with the same health and timeouts: what
    /// answers once they failed.
    public func dropping(_ count: Int) -> any LanguageModelProvider {
        remainder(count)
    }
}

/// The part of a chain's health registry that a caller driving a member itself uses.
public protocol FailoverHealth: Sendable {
    /// Whether `provider` is serving without recent failures (read without waiting).
    func isHealthy(_ provider: String) -> Bool
    /// Whether a request may go to `provider` now (its circuit not open).
    func allowsRequest(to provider: String) async -> Bool
    /// Records that `provider` served.
    func recordSuccess(_ provider: String) async
    /// Records that `provider` failed, of `kind`, for `reason`.
    func recordFailure(_ provider: String, kind: FailureKind, reason: String) async
}

extension ProviderHealth: FailoverHealth {}
