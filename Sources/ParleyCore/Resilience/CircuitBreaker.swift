/// The health of one provider as a circuit breaker: a pure value that outcomes and time move
/// between closed (serving), open (resting after failures) and half-open (one trial request).
public struct CircuitBreaker<Instant: InstantProtocol>: Sendable, Equatable where Instant.Duration == Duration {
    /// Tuning of the breaker.
    public struct Configuration: Sendable, Equatable {
        /// Consecutive failures that open the circuit.
        public var failureThreshold: Int
        /// How long an open circuit rests before a trial request.
        public var coolDown: Duration
        /// How long a configuration failure (bad key) keeps the circuit open.
        public var configurationCoolDown: Duration

        /// Creates a configuration.
        public init(failureThreshold: Int = 3, coolDown: Duration = .seconds(30), configurationCoolDown: Duration = .seconds(600)) {
            self.failureThreshold = failureThreshold
            self.coolDown = coolDown
            self.configurationCoolDown = configurationCoolDown
        }
    }

    /// Where the breaker is.
    public enum State: Sendable, Equatable {
        /// Serving; `failures` consecutive failures so far.
        case closed(failures: Int)
        /// Resting until the instant; requests skip this provider.
        case open(until: Instant)
        /// The rest is over; the next request is a trial.
        case halfOpen
    }

    /// The configuration in force.
    public let configuration: Configuration
    /// The current state (before time-based transitions; see ``state(at:)``).
    public private(set) var state: State = .closed(failures: 0)

    /// Creates a closed breaker.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The state at `now`: an open circuit whose rest is over is half-open.
    public func state(at now: Instant) -> State {
        if case .open(let until) = state, now >= until { return .halfOpen }
        return state
    }

    /// Whether a request may go to this provider at `now`.
    public func allowsRequest(at now: Instant) -> Bool {
        if case .open = state(at: now) { return false }
        return true
    }

    /// Records a success: the circuit closes.
    public mutating func recordSuccess() {
        state = .closed(failures: 0)
    }

    /// Records a failure at `now`.
    public mutating func recordFailure(_ kind: FailureKind, at now: Instant) {
        switch (kind, state(at: now)) {
        case (.invalidRequest, _):
            return  // the request was at fault, not the provider
        case (.configuration, _):
            state = .open(until: now.advanced(by: configuration.configurationCoolDown))
        case (.transient(let retryAfter), .halfOpen):
            state = .open(until: now.advanced(by: max(configuration.coolDown, retryAfter ?? .zero)))
        case (.transient(let retryAfter?), _):
            // The server said when to come back: rest at least that long.
            state = .open(until: now.advanced(by: retryAfter))
        case (.transient(nil), .closed(let failures)):
            state =
                failures + 1 >= configuration.failureThreshold
                ? .open(until: now.advanced(by: configuration.coolDown))
                : .closed(failures: failures + 1)
        case (.transient(nil), .open):
            return
        }
    }
}
