import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
import ParleyData
import Synchronization

/// Per-key limits on requests and tokens per minute (`PARLEY_RATE_LIMIT_RPM`,
/// `PARLEY_RATE_LIMIT_TPM`; off when unset). Each key has two buckets that refill evenly over
/// a minute: a request takes one from the first; the tokens a reply used are taken from the
/// second afterwards, so a key that spent its tokens waits for the refill. Over a limit, the
/// answer is a 429 in OpenAI's shape with `Retry-After`, which the SDKs obey before they retry;
/// every answer carries OpenAI's `x-ratelimit-*` headers. One key's use never limits another's.
final class RateLimits: Sendable {
    /// A bucket's content and when it was last topped up.
    private struct Bucket {
        var level: Double
        var updated: ContinuousClock.Instant
    }

    /// Requests per minute per key; `nil` for no limit.
    let requestsPerMinute: Int?
    /// Tokens per minute per key; `nil` for no limit.
    let tokensPerMinute: Int?
    private let buckets = Mutex<[Owner: (requests: Bucket, tokens: Bucket)]>([:])
    /// What this instance spent per key since it last told the other instances (see
    /// ``SharedLimits``); kept only while they share a database.
    private let unsynced = Mutex<[Owner: (requests: Int, tokens: Int)]?>(nil)

    init(requestsPerMinute: Int?, tokensPerMinute: Int?) {
        self.requestsPerMinute = requestsPerMinute.flatMap { $0 > 0 ? $0 : nil }
        self.tokensPerMinute = tokensPerMinute.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Whether any limit is on.
    var isOn: Bool { requestsPerMinute != nil || tokensPerMinute != nil }

    /// What a request may do now.
    struct Decision: Sendable {
        var allowed: Bool
        /// Seconds until it would be allowed (when it is not).
        var retryAfter: Double
        /// OpenAI's rate-limit headers for the key's buckets.
        var headers: [(String, String)]
    }

    /// Takes one request of `owner`'s at `now`, if its buckets allow.
    func admit(_ owner: Owner, at now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { all in
            var entry = all[owner] ?? (Bucket(level: Double(requestsPerMinute ?? 0), updated: now), Bucket(level: Double(tokensPerMinute ?? 0), updated: now))
            entry.requests = Self.refilled(entry.requests, perMinute: requestsPerMinute, at: now)
            entry.tokens = Self.refilled(entry.tokens, perMinute: tokensPerMinute, at: now)
            var wait = 0.0
            if let rpm = requestsPerMinute, entry.requests.level < 1 { wait = max(wait, (1 - entry.requests.level) * 60 / Double(rpm)) }
            if let tpm = tokensPerMinute, entry.tokens.level < 1 { wait = max(wait, (1 - entry.tokens.level) * 60 / Double(tpm)) }
            let allowed = wait == 0
            if allowed, requestsPerMinute != nil {
                entry.requests.level -= 1
                record(owner, requests: 1, tokens: 0)
            }
            all[owner] = entry
            return Decision(allowed: allowed, retryAfter: wait, headers: headers(entry))
        }
    }

    /// Takes the tokens a reply of `owner`'s used.
    func charge(_ owner: Owner, tokens: Int, at now: ContinuousClock.Instant = .now) {
        guard let tpm = tokensPerMinute, tokens > 0 else { return }
        buckets.withLock { all in
            guard var entry = all[owner] else { return }
            entry.tokens = Self.refilled(entry.tokens, perMinute: tpm, at: now)
            entry.tokens.level -= Double(tokens)
            all[owner] = entry
        }
        record(owner, requests: 0, tokens: tokens)
    }

    // MARK: Shared with other instances

    /// Starts keeping what this instance spends, for ``takeUnsynced()``.
    func shareSpending() {
        unsynced.withLock { if $0 == nil { $0 = [:] } }
    }

    private func record(_ owner: Owner, requests: Int, tokens: Int) {
        unsynced.withLock { pending in
            guard pending != nil else { return }
            let before = pending?[owner] ?? (0, 0)
            pending?[owner] = (before.requests + requests, before.tokens + tokens)
        }
    }

    /// What this instance spent since the last call, per key.
    func takeUnsynced() -> [Owner: (requests: Int, tokens: Int)] {
        unsynced.withLock { pending in
            let taken = pending ?? [:]
            if pending != nil { pending = [:] }
            return taken
        }
    }

    /// Takes what other instances spent of `owner`'s limits from this one's buckets.
    func absorb(_ owner: Owner, requests: Int, tokens: Int, at now: ContinuousClock.Instant = .now) {
        guard requests > 0 || tokens > 0 else { return }
        buckets.withLock { all in
            var entry = all[owner] ?? (Bucket(level: Double(requestsPerMinute ?? 0), updated: now), Bucket(level: Double(tokensPerMinute ?? 0), updated: now))
            entry.requests = Self.refilled(entry.requests, perMinute: requestsPerMinute, at: now)
            entry.tokens = Self.refilled(entry.tokens, perMinute: tokensPerMinute, at: now)
            if requestsPerMinute != nil { entry.requests.level -= Double(requests) }
            if tokensPerMinute != nil { entry.tokens.level -= Double(tokens) }
            all[owner] = entry
        }
    }

    /// Gives back one request taken by ``admit(_:at:)`` that another way takes again.
    func refund(_ owner: Owner) {
        guard let rpm = requestsPerMinute else { return }
        buckets.withLock { all in
            guard var entry = all[owner] else { return }
            entry.requests.level = min(Double(rpm), entry.requests.level + 1)
            all[owner] = entry
        }
    }

    /// The tokens a reply used, as a provider reported them: each count taken within a billion,
    /// so that a server reporting absurd counts neither overflows nor wraps around.
    static func tokens(of usage: Usage) -> Int {
        let bound = 1_000_000_000
        return min(max(0, usage.inputTokens), bound) + min(max(0, usage.outputTokens), bound)
    }

    /// Whole seconds to wait, rounded up, for any wait (a bound, never a trap).
    static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds.rounded(.up), 86_400))
    }

    /// The owner's limits as realtime's `rate_limits.updated` lists them: requests and tokens,
    /// each with its limit, what remains and when it is full again; empty when limits are off.
    func realtimeEntries(_ owner: Owner, at now: ContinuousClock.Instant = .now) -> [JSONValue] {
        buckets.withLock { all in
            var entries: [JSONValue] = []
            let current = all[owner]
            for (name, perMinute, bucket) in [("requests", requestsPerMinute, current?.requests), ("tokens", tokensPerMinute, current?.tokens)] {
                guard let perMinute else { continue }
                let level = bucket.map { Self.refilled($0, perMinute: perMinute, at: now).level } ?? Double(perMinute)
                entries.append(
                    .object([
                        "name": .string(name), "limit": .number(Double(perMinute)), "remaining": .number(max(0, level.rounded(.down))),
                        "reset_seconds": .number(((Double(perMinute) - level) * 60 / Double(perMinute) * 100).rounded() / 100),
                    ]))
            }
            return entries
        }
    }

    private static func refilled(_ bucket: Bucket, perMinute: Int?, at now: ContinuousClock.Instant) -> Bucket {
        guard let perMinute else { return bucket }
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Bucket(level: min(Double(perMinute), bucket.level + seconds * Double(perMinute) / 60), updated: now)
    }

    /// OpenAI's rate-limit headers for a key's buckets.
    private func headers(_ entry: (requests: Bucket, tokens: Bucket)) -> [(String, String)] {
        var fields: [(String, String)] = []
        if let rpm = requestsPerMinute {
            let remaining = max(0, Int(entry.requests.level.rounded(.down)))
            fields += [
                ("x-ratelimit-limit-requests", "\(rpm)"), ("x-ratelimit-remaining-requests", "\(remaining)"),
                ("x-ratelimit-reset-requests", Self.duration((Double(rpm) - entry.requests.level) * 60 / Double(rpm))),
            ]
        }
        if let tpm = tokensPerMinute {
            let remaining = max(0, Int(entry.tokens.level.rounded(.down)))
            fields += [
                ("x-ratelimit-limit-tokens", "\(tpm)"), ("x-ratelimit-remaining-tokens", "\(remaining)"),
                ("x-ratelimit-reset-tokens", Self.duration((Double(tpm) - entry.tokens.level) * 60 / Double(tpm))),
            ]
        }
        return fields
    }

    /// A duration as OpenAI writes it in these headers: `1s`, `6m0s`, `20ms`.
    static func duration(_ seconds: Double) -> String {
        let seconds = seconds.isFinite ? min(max(0, seconds), 1e9) : 0
        if seconds < 1 { return "\(Int((seconds * 1_000).rounded(.up)))ms" }
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? "\(whole / 60)m\(whole % 60)s" : "\(whole)s"
    }
}
