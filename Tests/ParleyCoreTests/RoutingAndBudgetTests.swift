import Foundation
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyCore

@Suite("Routing, budgets, retries and rate limits")
struct RoutingAndBudgetTests {
    let traits: [String: ProviderTraits] = [
        "anthropic": ProviderTraits(isLocal: false, capabilities: LanguageModelCapabilities(images: true)),
        "openai": ProviderTraits(isLocal: false, capabilities: LanguageModelCapabilities(images: true, jsonSchema: true)),
        "ollama": ProviderTraits(isLocal: true, capabilities: LanguageModelCapabilities(jsonSchema: true)),
        "llama.cpp": ProviderTraits(isLocal: true),
    ]
    var router: Router {
        Router(
            policy: RoutingPolicy(
                defaultChain: ["anthropic", "openai", "ollama", "llama.cpp"],
                chains: [.simplification: ["openai", "llama.cpp"]]), providers: traits)
    }

    func request(task: TaskKind = .conversation, image: Bool = false, isPrivate: Bool = false, forced: String? = nil) -> ChatRequest {
        var parts: [ChatMessage.Part] = [.text("hi")]
        if image { parts.append(.image(data: Data([0]), mimeType: "image/png")) }
        return ChatRequest(messages: [ChatMessage(role: .user, parts: parts)], task: task, isPrivate: isPrivate, forcedProvider: forced)
    }

    @Test(
        "routes by task, explaining the rule",
        arguments: [
            (TaskKind.conversation, ["anthropic", "openai", "ollama", "llama.cpp"], "task conversation: the default chain"),
            (TaskKind.simplification, ["openai", "llama.cpp"], "task simplification: its own chain"),
        ])
    func byTask(task: TaskKind, expected: [String], rule: String) throws {
        let decision = try router.route(request(task: task))
        #expect(decision.providers == expected)
        #expect(decision.rules == [rule])
    }

    @Test("images go to vision-capable providers; private requests stay on the machine")
    func byContent() throws {
        #expect(try router.route(request(image: true)).providers == ["anthropic", "openai"])
        #expect(try router.route(request(isPrivate: true)).providers == ["ollama", "llama.cpp"])
        #expect(throws: RoutingError.self) { try router.route(request(image: true, isPrivate: true)) }
    }

    @Test("a forced provider overrides the chain but not privacy")
    func forced() throws {
        #expect(try router.route(request(forced: "ollama")).providers == ["ollama"])
        #expect(throws: RoutingError.unknownProvider("gemini")) { try router.route(request(forced: "gemini")) }
        #expect(throws: RoutingError.self) { try router.route(request(isPrivate: true, forced: "openai")) }
    }

    @Test("an exhausted budget keeps requests on free providers")
    func budgetRouting() throws {
        let decision = try router.route(request(), budgetExhausted: true)
        #expect(decision.providers == ["ollama", "llama.cpp"])
        #expect(decision.rules.last == "monthly budget reached: free providers only")
    }

    @Test("spending alerts at the threshold, stops at the budget, and resets with the month")
    func spending() async {
        let clock = DateBox(Date(timeIntervalSince1970: 1_790_000_000))  // mid-month
        let prices = PriceTable(["openai": Price(perMillionInputTokens: 100_000, perMillionOutputTokens: 100_000)])
        let tracker = SpendingTracker(monthlyBudget: 200, alertThreshold: 150, prices: prices, now: { clock.value })
        var events = tracker.events.makeAsyncIterator()
        #expect(await tracker.record(MeteredUsage(inputTokens: 1000), on: "openai") == 100)
        #expect(await tracker.state == .withinBudget)
        await tracker.record(MeteredUsage(outputTokens: 600), on: "openai")
        #expect(await tracker.state == .alert)
        await tracker.record(MeteredUsage(inputTokens: 10_000), on: "llama.cpp")  // free
        #expect(await tracker.spent == 160)
        await tracker.record(MeteredUsage(outputTokens: 400), on: "openai")
        #expect(await tracker.isExhausted)
        #expect(await events.next()?.state == .alert)
        #expect(await events.next()?.state == .exhausted)
        clock.value = clock.value.addingTimeInterval(40 * 86_400)
        #expect(await tracker.state == .withinBudget)
        #expect(await tracker.spent == 0)
    }

    @Test("the routed model charges usage and then falls back to free providers at the budget")
    func routedBudget() async throws {
        let clock = ManualClock()
        let cloud = FaultyLanguageModel(name: "openai", pieces: ["paid"])
        let local = FaultyLanguageModel(name: "llama.cpp", pieces: ["free"], isLocal: true)
        let tracker = SpendingTracker(
            monthlyBudget: 1, alertThreshold: 0.5,
            prices: PriceTable(["openai": Price(perMillionOutputTokens: 1_000_000)]))
        let model = RoutedLanguageModel(
            providers: [cloud, local], policy: RoutingPolicy(defaultChain: ["openai", "llama.cpp"]),
            health: ProviderHealth(clock: clock), clock: clock, spending: tracker)
        let first = try await model.completeText(request())
        #expect(first.text == "paid")  // 1 output token = $1: the budget is now used up
        #expect(await tracker.isExhausted)
        #expect(try await model.completeText(request()).text == "free")
        #expect(await cloud.requests.count == 1)
    }

    @Test("backoff grows exponentially, is capped, jitters, and honours Retry-After")
    func backoff() {
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500), jitter: 0.5)
        #expect(policy.delay(after: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(after: 2, random: 1) == .milliseconds(200))
        #expect(policy.delay(after: 5, random: 1) == .milliseconds(500))
        #expect(policy.delay(after: 2, random: 0) == .milliseconds(100))
        #expect(policy.delay(after: 1, retryAfter: .seconds(3), random: 0) == .seconds(3))
    }

    @Test("retries run on the clock and stop at non-transient errors")
    func retries() async throws {
        let clock = ManualClock()
        let attempts = Counter()
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(1), jitter: 0)
        let task = Task {
            try await policy.run(clock: clock) {
                if await attempts.increment() < 3 { throw ServiceError(status: 503) }
                return "done"
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(try await task.value == "done")
        await #expect(throws: ServiceError.self) {
            try await policy.run(clock: clock) { () async throws -> Int in throw ServiceError(status: 400) }
        }
    }

    @Test("the rate limiter lets a burst through, then serves waiting requests in order as time passes")
    func rateLimit() async {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: 2, per: .seconds(1), clock: clock)
        await limiter.acquire()
        await limiter.acquire()
        let order = Recorder()
        let third = Task {
            await limiter.acquire(); await order.append(3)
        }
        await eventually { await limiter.waiting == 1 }
        let fourth = Task {
            await limiter.acquire(); await order.append(4)
        }
        await eventually { await limiter.waiting == 2 }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        await third.value
        #expect(await order.values == [3])
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        await fourth.value
        #expect(await order.values == [3, 4])
    }
}

final class DateBox: Sendable {
    private let stored: Mutex<Date>
    init(_ date: Date) { stored = Mutex(date) }
    var value: Date {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

actor Counter {
    private var count = 0
    func increment() -> Int { count += 1; return count }
}

actor Recorder {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}
