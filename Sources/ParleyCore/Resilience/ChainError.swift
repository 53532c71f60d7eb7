/// Why a fallback chain could not serve a request: every provider was tried or skipped.
public struct ChainExhaustedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One provider's outcome.
    public struct Attempt: Sendable, Equatable {
        /// The provider.
        public var provider: String
        /// Why it did not serve.
        public var reason: String
        /// What would make it serve, if known (e.g. "set OPENAI_API_KEY").
        public var remedy: String?

        /// Creates an attempt record.
        public init(provider: String, reason: String, remedy: String? = nil) {
            self.provider = provider
            self.reason = reason
            self.remedy = remedy
        }
    }

    /// The capability, e.g. "LLM".
    public var capability: String
    /// Every provider, in chain order.
    public var attempts: [Attempt]

    /// Creates the error.
    public init(capability: String, attempts: [Attempt]) {
        self.capability = capability
        self.attempts = attempts
    }

    public var description: String {
        guard !attempts.isEmpty else { return "No \(capability) provider is configured." }
        let details = attempts.map { "\($0.provider): \($0.reason)" }.joined(separator: "; ")
        let remedies = attempts.compactMap(\.remedy)
        let fix = remedies.isEmpty ? "" : " To fix: " + remedies.joined(separator: ", or ") + "."
        return "No \(capability) provider could serve the request (\(details)).\(fix)"
    }
}

/// A provider stopped answering in time.
public struct ProviderTimeoutError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// Which wait ran out.
    public enum Phase: String, Sendable, Equatable {
        /// The wait for the first output (a first token, chunk or transcript).
        case firstOutput = "first output"
        /// The wait between one output and the next.
        case idle = "next output"
    }

    /// Which wait ran out.
    public var phase: Phase
    /// How long the wait was allowed to be.
    public var limit: Duration

    public var failureKind: FailureKind { .transient(retryAfter: nil) }
    public var description: String { "no \(phase.rawValue) within \(limit)" }
}

extension Availability {
    /// What a person can do to make a provider with this availability serve.
    public var remedy: String? {
        switch self {
        case .ready: return nil
        case .missingKey(let variable): return "set \(variable)"
        case .missingModel(_, let hint): return hint
        case .serverUnreachable(let url, _): return "start the server at \(url) or change its URL"
        case .unsupported(let reason): return reason
        case .insufficientResources: return "free memory or let the machine cool down, or configure a cloud provider"
        }
    }
}
