import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyTesting
import Testing

/// Per-key limits: a key past its requests or tokens per minute gets 429 with Retry-After and
/// OpenAI's rate-limit headers; another key is not affected; the bucket refills.
@Suite("Rate limits")
struct RateLimitTests {
    static let a = [("authorization", "Bearer key-a")]
    static let b = [("authorization", "Bearer key-b")]

    @Test("requests per minute: the third request of a key with two is a 429 saying when; the other key goes on")
    func requests() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_API_KEYS": "key-a,key-b", "PARLEY_RATE_LIMIT_RPM": "2"])
        defer { server.stop() }
        let body = ["messages": [["role": "user", "content": "Hi"]]]
        let first = try await server.post("/v1/chat/completions", json: body, headers: Self.a)
        #expect(first.status == 200)
        #expect(first.headers["x-ratelimit-limit-requests"] == "2" && first.headers["x-ratelimit-remaining-requests"] == "1")
        let second = try await server.post("/v1/chat/completions", json: body, headers: Self.a)
        #expect(second.status == 200 && second.headers["x-ratelimit-remaining-requests"] == "0")
        let third = try await server.post("/v1/chat/completions", json: body, headers: Self.a)
        #expect(third.status == 429)
        #expect(third.error?["type"] as? String == "rate_limit_error")
        let wait = Int(third.headers["retry-after"] ?? "") ?? 0
        #expect((1...30).contains(wait), "\(third.headers)")
        let other = try await server.post("/v1/chat/completions", json: body, headers: Self.b)
        #expect(other.status == 200)
        #expect((try await server.send(.GET, "/health")).status == 200)  // open paths are not limited
    }

    @Test("tokens per minute: a key that spent its tokens waits; the refill is even")
    func tokens() async throws {
        let limits = RateLimits(requestsPerMinute: nil, tokensPerMinute: 60)
        let start = ContinuousClock.now
        #expect(limits.admit(.local, at: start).allowed)
        limits.charge(.local, tokens: 100, at: start)
        let waiting = limits.admit(.local, at: start + .seconds(30))  // 60 - 100 + 30 = -10
        #expect(!waiting.allowed && abs(waiting.retryAfter - 11) < 0.01)
        #expect(limits.admit(.key("other"), at: start + .seconds(30)).allowed)
        #expect(limits.admit(.local, at: start + .seconds(41)).allowed)  // refilled past 1
    }
}
