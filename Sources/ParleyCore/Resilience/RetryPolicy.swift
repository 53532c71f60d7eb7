/// Retries with exponential backoff and jitter, honouring a server's Retry-After.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The delay before the second attempt.
    public var initialDelay: Duration
    /// Each further delay is this many times the previous.
    public var multiplier: Double
    /// No delay is longer.
    public var maxDelay: Duration
    /// The fraction of each delay that is random (0 = none, 1 = "full jitter").
    public var jitter: Double

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(250), multiplier: Double = 2,
        maxDelay: Duration = .seconds(8), jitter: Double = 0.5
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay after failed attempt `attempt` (1-based). `random` is in [0, 1).
    public func delay(after attempt: Int, retryAfter: Duration? = nil, random: Double) -> Duration {
        let exponential = initialDelay * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(exponential, maxDelay)
        let jittered = capped * (1 - jitter) + capped * (jitter * random)
        return max(jittered, retryAfter ?? .zero)
    }

    /// Runs `operation` until it succeeds, an error is not transient, or attempts run out;
    /// waits on `clock` between attempts.
    public func run<C: Clock, T>(
        clock: C, random: @Sendable () -> Double = { Double.random(in: 0..<1) }, _ operation: () async throws -> T
    ) async throws -> T where C.Duration == Duration {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                guard attempt < maxAttempts, case .transient(let retryAfter) = failureKind(of: error) else { throw error }
                try await clock.sleep(for: delay(after: attempt, retryAfter: retryAfter, random: random()))
                attempt += 1
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
