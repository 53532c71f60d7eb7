/// A per-provider rate limit: at most `limit` requests per `interval`, with waiting requests
/// served in order (a token bucket refilled continuously, with a queue).
public actor RateLimiter<C: Clock> where C.Duration == Duration {
    /// The most requests per ``interval``.
    public let limit: Int
    /// The window the limit counts requests in.
    public let interval: Duration
    private let clock: C
    private var tokens: Double
    private var refilled: C.Instant
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var draining = false

    /// Creates a limiter with a full bucket.
    public init(limit: Int, per interval: Duration, clock: C) {
        precondition(limit > 0, "a rate limit must allow at least one request")
        self.limit = limit
        self.interval = interval
        self.clock = clock
        self.tokens = Double(limit)
        self.refilled = clock.now
    }

    /// Requests waiting for a token.
    public var waiting: Int { queue.count }

    /// Waits for a token (in arrival order) and takes it.
    public func acquire() async {
        refill()
        if queue.isEmpty, tokens >= 1 {
            tokens -= 1
            return
        }
        if !draining { Task { await self.drain() } }
        await withCheckedContinuation { queue.append($0) }
    }

    /// Serves the queue in order as tokens come back.
    private func drain() async {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty {
            refill()
            if tokens >= 1 {
                tokens -= 1
                queue.removeFirst().resume()
                continue
            }
            let perToken = interval / limit
            let wait = perToken * (1 - tokens)
            do { try await clock.sleep(for: wait) } catch { return }
        }
    }

    private func refill() {
        let now = clock.now
        let elapsed = refilled.duration(to: now)
        refilled = now
        let ratio = elapsed / interval
        tokens = min(Double(limit), tokens + ratio * Double(limit))
    }
}
