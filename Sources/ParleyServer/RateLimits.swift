import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
import ParleyStore
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
            if allowed, requestsPerMinute != nil { entry.requests.level -= 1 }
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
                entries.append(.object(["name": .string(name), "limit": .number(Double(perMinute)), "remaining": .number(max(0, level.rounded(.down))),
                                        "reset_seconds": .number(((Double(perMinute) - level) * 60 / Double(perMinute) * 100).rounded() / 100)]))
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
            fields += [("x-ratelimit-limit-requests", "\(rpm)"), ("x-ratelimit-remaining-requests", "\(remaining)"),
                       ("x-ratelimit-reset-requests", Self.duration((Double(rpm) - entry.requests.level) * 60 / Double(rpm)))]
        }
        if let tpm = tokensPerMinute {
            let remaining = max(0, Int(entry.tokens.level.rounded(.down)))
            fields += [("x-ratelimit-limit-tokens", "\(tpm)"), ("x-ratelimit-remaining-tokens", "\(remaining)"),
                       ("x-ratelimit-reset-tokens", Self.duration((Double(tpm) - entry.tokens.level) * 60 / Double(tpm)))]
        }
        return fields
    }

    /// A duration as OpenAI writes it in these headers: `1s`, `6m0s`, `20ms`.
    static func duration(_ seconds: Double) -> String {
        let seconds = max(0, seconds)
        if seconds < 1 { return "\(Int((seconds * 1_000).rounded(.up)))ms" }
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? "\(whole / 60)m\(whole % 60)s" : "\(whole)s"
    }
}

/// Applies ``RateLimits`` to every authenticated request (after the key is known).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let limits: RateLimits
    let openPaths: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard limits.isOn, !openPaths.contains(request.uri.path) else { return try await next(request, context) }
        let decision = limits.admit(context.owner)
        guard decision.allowed else {
            let seconds = Int(decision.retryAfter.rounded(.up))
            var failure = OpenAIError(status: .tooManyRequests,
                                      message: "Rate limit reached for this key: try again in \(seconds) s.",
                                      type: "rate_limit_error", code: "rate_limit_exceeded")
            failure.retryAfter = max(1, seconds)
            var response = try failure.response(from: request, context: context)
            for (name, value) in decision.headers { if let field = HTTPField.Name(name) { response.headers[field] = value } }
            return response
        }
        var response = try await next(request, context)
        for (name, value) in decision.headers { if let field = HTTPField.Name(name) { response.headers[field] = value } }
        return response
    }
}

