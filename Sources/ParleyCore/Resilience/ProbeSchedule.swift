/// When each provider is probed next: every `interval` while it answers, and after each failed
/// probe twice as long as after the one before, up to `longest`. A dead server is then asked
/// about once per `longest` rather than every `interval` (a probe of a dead host may wait out a
/// connection timeout each time), and a server that comes back is seen at the latest one
/// `longest` later, or at once by a request that finds it answering.
public struct ProbeSchedule<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The time between probes of a provider that answers.
    public let interval: Duration
    /// The longest time between probes of one that does not.
    public let longest: Duration
    private var due: [String: Instant] = [:]
    private var failures: [String: Int] = [:]

    /// A schedule probing every `interval`, backing off to at most `longest` (never shorter
    /// than `interval`).
    public init(interval: Duration, longest: Duration) {
        self.interval = interval
        self.longest = max(longest, interval)
    }

    /// Whether `provider` is due for a probe at `now` (a provider never probed is).
    public func isDue(_ provider: String, at now: Instant) -> Bool {
        guard let next = due[provider] else { return true }
        return now >= next
    }

    /// Records a probe's outcome at `now` and schedules the next one.
    public mutating func record(_ provider: String, answered: Bool, at now: Instant) {
        if answered {
            failures[provider] = nil
            due[provider] = now.advanced(by: interval)
            return
        }
        let count = (failures[provider] ?? 0) + 1
        failures[provider] = count
        due[provider] = now.advanced(by: wait(afterFailures: count))
    }

    /// The wait after `count` failed probes in a row: `interval` after the first, doubling
    /// after each further one, at most `longest`.
    public func wait(afterFailures count: Int) -> Duration {
        var wait = interval
        for _ in 1..<max(count, 1) {
            guard wait < longest else { break }
            wait = wait * 2
        }
        return min(wait, longest)
    }
}
