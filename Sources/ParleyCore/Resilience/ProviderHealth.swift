import Logging
import Synchronization

/// The health of every provider of a chain, fed by real outcomes and by probes, with a
/// circuit breaker per provider. Changes are published on ``changes``.
public actor ProviderHealth<C: Clock> where C.Duration == Duration {
    /// A provider's health as reported to people.
    public enum Status: String, Sendable, Equatable, Codable {
        /// Serving without recent failures.
        case healthy
        /// Serving, but has failed recently.
        case degraded
        /// Resting after failures; requests skip it until its cool-down ends.
        case down
        /// The cool-down is over; the next request is a trial.
        case recovering
    }

    /// A change of a provider's status.
    public struct Change: Sendable, Equatable {
        /// The provider whose status changed.
        public var provider: String
        /// Its status before.
        public var from: Status
        /// Its status now.
        public var to: Status
        /// Why: the failure or "recovered".
        public var reason: String
    }

    private let clock: C
    private let configuration: CircuitBreaker<C.Instant>.Configuration
    private var breakers: [String: CircuitBreaker<C.Instant>] = [:]
    private var lastStatus: [String: Status] = [:]
    /// The providers whose last status was not healthy, readable without a hop onto the actor.
    private nonisolated let troubled = Mutex<Set<String>>([])
    private let changeSink: AsyncStream<Change>.Continuation
    /// Every status change, in order.
    public nonisolated let changes: AsyncStream<Change>

    /// Creates a registry in which every provider starts healthy.
    public init(clock: C, configuration: CircuitBreaker<C.Instant>.Configuration = .init()) {
        self.clock = clock
        self.configuration = configuration
        (changes, changeSink) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit { changeSink.finish() }

    /// The provider's status now.
    public func status(of provider: String) -> Status {
        let status = Self.status(of: breakers[provider, default: CircuitBreaker(configuration: configuration)], at: clock.now)
        note(provider, status, reason: "cool-down over")
        return status
    }

    /// Whether the provider is healthy, as last noted (without waiting for the actor): a
    /// request to a healthy provider needs neither ``allowsRequest(to:)`` nor
    /// ``recordSuccess(_:)``, which would change nothing. A hot path (a proxy's every request)
    /// asks this first.
    public nonisolated func isHealthy(_ provider: String) -> Bool {
        troubled.withLock { !$0.contains(provider) }
    }

    /// Whether a request may go to the provider now.
    public func allowsRequest(to provider: String) -> Bool {
        status(of: provider) != .down
    }

    /// Records a successful request (or probe).
    public func recordSuccess(_ provider: String) {
        breakers[provider, default: CircuitBreaker(configuration: configuration)].recordSuccess()
        note(provider, .healthy, reason: "recovered")
    }

    /// Records a failed request (or probe) and why it failed.
    public func recordFailure(_ provider: String, kind: FailureKind, reason: String) {
        let now = clock.now
        breakers[provider, default: CircuitBreaker(configuration: configuration)].recordFailure(kind, at: now)
        note(provider, Self.status(of: breakers[provider, default: CircuitBreaker(configuration: configuration)], at: now), reason: reason)
    }

    /// Probes `providers` with their availability check every `interval` until the returned
    /// task is cancelled: a provider that answers ready after a rest is healthy again, one that
    /// does not is marked down. A provider that keeps failing is probed less and less often
    /// (``ProbeSchedule``): twice the wait after each failure, at most `longest` (by default 16
    /// intervals, and never more than five minutes unless the interval itself is longer).
    public nonisolated func startProbing(_ providers: [any Provider], every interval: Duration, longest: Duration? = nil) -> Task<Void, Never> {
        Task {
            var schedule = ProbeSchedule<C.Instant>(interval: interval, longest: longest ?? max(interval, min(interval * 16, .seconds(300))))
            while !Task.isCancelled {
                for provider in providers {
                    let name = provider.identity.description
                    guard schedule.isDue(name, at: clock.now) else { continue }
                    let availability = await provider.availability()
                    if availability.isReady {
                        if await self.status(of: name) != .healthy { await self.recordSuccess(name) }
                    } else {
                        await self.recordFailure(name, kind: .configuration, reason: availability.description)
                    }
                    schedule.record(name, answered: availability.isReady, at: clock.now)
                }
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }

    private func note(_ provider: String, _ status: Status, reason: String) {
        let previous = lastStatus[provider] ?? .healthy
        lastStatus[provider] = status
        if status == .healthy {
            if previous != .healthy { troubled.withLock { _ = $0.remove(provider) } }
        } else {
            troubled.withLock { _ = $0.insert(provider) }
        }
        if previous != status {
            changeSink.yield(Change(provider: provider, from: previous, to: status, reason: reason))
        }
    }

    private static func status(of breaker: CircuitBreaker<C.Instant>, at now: C.Instant) -> Status {
        switch breaker.state(at: now) {
        case .closed(let failures): return failures == 0 ? .healthy : .degraded
        case .open: return .down
        case .halfOpen: return .recovering
        }
    }
}
