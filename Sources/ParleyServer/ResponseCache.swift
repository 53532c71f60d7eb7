import Foundation
import Logging
import ParleyRuntime
import ParleyData
import Synchronization

/// The server's response cache (MirrorBuddy's cost rule): identical non-personal chat
/// completions (see ``ChatCacheKey``) are answered from the conversation store for ``ttl``, so
/// that instances sharing a PostgreSQL database share their cache too.
///
/// The cache never fails a request: a store that cannot be read or written is logged and the
/// request goes to the model. Expired entries are never served, and are swept from the store at
/// most once a minute, when an answer is saved.
final class ResponseCache: Sendable {
    /// How long an answer is served; zero turns the cache off.
    let ttl: Duration
    private let runtime: Runtime<ContinuousClock>
    private let metrics: ServerMetrics
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let lastSweep = Mutex<Date?>(nil)

    /// The least time between two sweeps of expired entries.
    static let sweepInterval: TimeInterval = 60

    init(
        ttl: Duration, runtime: Runtime<ContinuousClock>, metrics: ServerMetrics, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.ttl = ttl
        self.runtime = runtime
        self.metrics = metrics
        self.logger = logger
        self.now = now
    }

    /// Whether answers are cached at all.
    var isOn: Bool { ttl > .zero }

    /// The answer cached under `key` for `owner`, counted as a hit, or `nil`, counted as a miss.
    func lookup(_ key: String, owner: Owner) async -> CachedChatAnswer? {
        guard isOn else { return nil }
        do {
            let store = try await runtime.store()
            if let cached = try await store.cachedResponse(key, owner: owner, at: now()) {
                let answer = try JSONDecoder().decode(CachedChatAnswer.self, from: cached.body)
                metrics.recordCacheRequest(hit: true)
                return answer
            }
        } catch {
            logger.warning("the response cache could not be read, asking the model: \(error)")
        }
        metrics.recordCacheRequest(hit: false)
        return nil
    }

    /// Keeps `answer` under `key` for `owner` until ``ttl`` from now.
    func save(_ answer: CachedChatAnswer, key: String, owner: Owner) async {
        guard isOn else { return }
        let date = now()
        do {
            let store = try await runtime.store()
            let body = try JSONEncoder().encode(answer)
            try await store.cacheResponse(
                CachedResponse(
                    key: key, body: body, createdAt: date,
                    expiresAt: date.addingTimeInterval(Self.seconds(ttl))), owner: owner)
            if sweepIsDue(at: date) {
                let removed = try await store.removeExpiredResponses(at: date)
                if removed > 0 { logger.debug("removed \(removed) expired cached responses") }
            }
        } catch {
            logger.warning("the response cache could not be written: \(error)")
        }
    }

    /// Whether a sweep is due at `date`; if so, it is recorded as done.
    private func sweepIsDue(at date: Date) -> Bool {
        lastSweep.withLock { last in
            if let last, date.timeIntervalSince(last) < Self.sweepInterval { return false }
            last = date
            return true
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
