import Foundation
import Logging
import ParleyData

/// Keeps every instance that shares a PostgreSQL database within one set of per-key limits:
/// a few times a second each instance adds what it spent to the minute's row of each key
/// (`rate_spending`) and takes what the others spent from its own buckets. A key's limit is
/// then one limit however many instances serve it, give or take what is spent between two
/// exchanges (``interval``).
actor SharedLimits {
    private let limits: RateLimits
    private let store: any SharedConversationStoring
    private let logger: Logger
    /// How often spending is exchanged.
    let interval: Duration
    /// Per key, in the current minute: what this instance added, and what it has seen the
    /// others spend.
    private var minute: Int64 = 0
    private var own: [Owner: (requests: Int, tokens: Int)] = [:]
    private var others: [Owner: (requests: Int, tokens: Int)] = [:]

    init(limits: RateLimits, store: any SharedConversationStoring, logger: Logger, interval: Duration = .milliseconds(250)) {
        self.limits = limits
        self.store = store
        self.logger = logger
        self.interval = interval
        limits.shareSpending()
    }

    /// Exchanges spending until cancelled.
    func run() async {
        while !Task.isCancelled {
            await exchange()
            try? await Task.sleep(for: interval)
        }
    }

    /// One exchange: this instance's spending out, the others' in.
    func exchange(now: Date = Date()) async {
        let current = Int64(now.timeIntervalSince1970 / 60)
        if current != minute {
            if minute != 0 { try? await store.forgetSpending(before: current - 1) }
            minute = current
            own = [:]
            others = [:]
        }
        do {
            for (owner, spent) in limits.takeUnsynced() where spent.requests > 0 || spent.tokens > 0 {
                try await store.addSpending(owner: owner, minute: current, requests: spent.requests, tokens: spent.tokens)
                let mine = own[owner] ?? (0, 0)
                own[owner] = (mine.requests + spent.requests, mine.tokens + spent.tokens)
            }
            // Every key's spending in the minute, this instance's included: what is new of the
            // others' is taken from this instance's buckets (a key it has not served yet too).
            for (owner, total) in try await store.spending(minute: current) {
                let mine = own[owner] ?? (0, 0)
                let theirs = (requests: max(0, total.requests - mine.requests), tokens: max(0, total.tokens - mine.tokens))
                let seen = others[owner] ?? (0, 0)
                others[owner] = theirs
                limits.absorb(owner, requests: theirs.requests - seen.requests, tokens: theirs.tokens - seen.tokens)
            }
        } catch {
            logger.warning("rate limits: the spending of other instances could not be exchanged (\(error)); each instance counts its own meanwhile")
        }
    }
}
