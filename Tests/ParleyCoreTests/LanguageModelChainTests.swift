import Foundation
import Logging
import ParleyTesting
import Testing
@testable import ParleyCore

/// A transient failure with an optional Retry-After, as an HTTP provider reports a 429 or 5xx.
struct ServiceError: Error, ClassifiedError, CustomStringConvertible {
    var status: Int
    var retryAfter: Duration?
    var failureKind: FailureKind { status == 400 ? .invalidRequest : .transient(retryAfter: retryAfter) }
    var description: String { "HTTP \(status)" }
}

/// Waits, yielding, until `condition` holds (bounded, so a broken test fails instead of hanging).
func eventually(_ condition: @Sendable () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    for _ in 0..<200_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}

/// Collects a chain's stream in a task so the test can move the clock meanwhile.
actor Listener {
    private(set) var heard = ""
    private(set) var finish: FinishReason?
    private(set) var error: (any Error)?

    func listen(to stream: AsyncThrowingStream<ChatEvent, any Error>) async {
        do {
            for try await event in stream {
                switch event {
                case .text(let piece): heard += piece
                case .finished(let reason, _): finish = reason
                case .provider, .toolCall, .toolCallDelta: break
                }
            }
        } catch {
            self.error = error
        }
    }
}

@Suite("LLM fallback chain")
struct LanguageModelChainTests {
    let clock = ManualClock()
    let logs = CapturedLogs()
    let request = ChatRequest(messages: [.system("Be brief."), .user("What is the capital of France?")])

    func chain(_ providers: [any LanguageModelProvider], health: ProviderHealth<ManualClock>? = nil) -> LanguageModelChain<ManualClock> {
        LanguageModelChain(
            providers: providers, health: health ?? ProviderHealth(clock: clock), clock: clock,
            timeouts: .init(firstOutput: .seconds(5), idle: .seconds(2)), logger: logs.logger())
    }

    @Test("a server error before any text replays the whole request on the next provider")
    func replayWhole() async throws {
        let cloud = FaultyLanguageModel(name: "cloud", pieces: [], fault: .fail(afterPieces: 0, error: ServiceError(status: 500)))
        let local = FaultyLanguageModel(name: "local", pieces: ["Paris", "."], isLocal: true)
        let result = try await chain([cloud, local]).completeText(request)
        #expect(result.text == "Paris.")
        #expect(await local.requests == [request])
        #expect(logs.messages(at: .warning) == ["[LLM] cloud failed: HTTP 500, falling back to local"])
    }

    @Test("a failure mid-stream continues on the next provider and nothing is said twice")
    func continueMidStream() async throws {
        let cloud = FaultyLanguageModel(
            name: "cloud", pieces: ["The capital", " of France", " is"],
            fault: .fail(afterPieces: 2, error: ServiceError(status: 502)))
        // The fallback starts the answer over; the listener must not hear the start again.
        let local = FaultyLanguageModel(name: "local", pieces: ["The capital of", " France is", " Paris."])
        let result = try await chain([cloud, local]).completeText(request)
        #expect(result.text == "The capital of France is Paris.")
        let continued = try #require(await local.requests.first)
        #expect(continued.messages.count == request.messages.count + 2)
        #expect(continued.messages[2] == .assistant("The capital of France"))
        #expect(await cloud.cancellations == 0)  // it failed by itself
    }

    @Test("a fallback that continues instead of repeating is passed through")
    func continuationPassesThrough() {
        var guardAgainstRepeats = RepeatGuard(alreadyDelivered: "The capital of France")
        #expect(guardAgainstRepeats.filter(" is") == " is")
        #expect(guardAgainstRepeats.filter(" Paris.") == " Paris.")
        var restart = RepeatGuard(alreadyDelivered: "The capital")
        #expect(restart.filter("The") == "")
        #expect(restart.filter(" capital of") == " of")
    }

    @Test("a stream that goes silent mid-way is cancelled and the next provider continues")
    func stall() async throws {
        let cloud = FaultyLanguageModel(name: "cloud", pieces: ["Paris"], fault: .stall(afterPieces: 1))
        let local = FaultyLanguageModel(name: "local", pieces: [" is the capital."])
        let listener = Listener()
        let task = Task { await listener.listen(to: chain([cloud, local]).complete(request)) }
        await eventually { await listener.heard == "Paris" }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        // The limit ran out; it is confirmed after a quarter of it more.
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        await task.value
        #expect(await listener.heard == "Paris is the capital.")
        #expect(await listener.finish == .stop)
        await eventually { await cloud.cancellations == 1 }
        #expect(logs.messages(at: .warning).first?.contains("no next output within 2.0 seconds") == true)
    }

    @Test("a provider that never starts is abandoned after the first-output timeout")
    func firstOutputTimeout() async throws {
        let cloud = FaultyLanguageModel(name: "cloud", pieces: ["late"], fault: .stall(afterPieces: 0))
        let local = FaultyLanguageModel(name: "local", pieces: ["Paris."])
        let listener = Listener()
        let task = Task { await listener.listen(to: chain([cloud, local]).complete(request)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(await listener.heard == "")  // not yet: the limit is 5 s
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(await listener.heard == "")  // not yet either: the limit is confirmed after 1.25 s more
        clock.advance(by: .milliseconds(250))
        await task.value
        #expect(await listener.heard == "Paris.")
        await eventually { await cloud.cancellations == 1 }
    }

    @Test("unavailable providers are skipped with one warning each, naming the reason")
    func skipUnavailable() async throws {
        let openai = FaultyLanguageModel(name: "openai", pieces: ["x"], availability: .missingKey(variable: "OPENAI_API_KEY"))
        let local = FaultyLanguageModel(name: "llama.cpp", pieces: ["Paris."])
        let chain = chain([openai, local])
        for _ in 0..<3 { _ = try await chain.completeText(request) }
        #expect(await openai.requests.isEmpty)
        #expect(logs.messages(at: .warning) == ["[LLM] openai: API key not configured (set OPENAI_API_KEY), falling back to llama.cpp"])
    }

    @Test("with every provider down the error names what to configure")
    func exhausted() async {
        let openai = FaultyLanguageModel(name: "openai", pieces: [], availability: .missingKey(variable: "OPENAI_API_KEY"))
        let ollama = FaultyLanguageModel(
            name: "ollama", pieces: [], availability: .serverUnreachable(url: "http://127.0.0.1:11434", reason: "connection refused"))
        do {
            _ = try await chain([openai, ollama]).completeText(request)
            Issue.record("expected an error")
        } catch let error as ChainExhaustedError {
            #expect(error.attempts.map(\.provider) == ["openai", "ollama"])
            #expect(error.description.contains("set OPENAI_API_KEY"))
            #expect(error.description.contains("start the server at http://127.0.0.1:11434"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a bad request is the caller's error, not a reason to fail over")
    func invalidRequest() async {
        let cloud = FaultyLanguageModel(name: "cloud", pieces: [], fault: .fail(afterPieces: 0, error: ServiceError(status: 400)))
        let local = FaultyLanguageModel(name: "local", pieces: ["x"])
        await #expect(throws: ServiceError.self) { _ = try await chain([cloud, local]).completeText(request) }
        #expect(await local.requests.isEmpty)
    }

    @Test("repeated failures open the circuit; after the cool-down a trial request closes it again")
    func circuitBreaker() async throws {
        let health = ProviderHealth(clock: clock, configuration: .init(failureThreshold: 2, coolDown: .seconds(30)))
        let cloud = FaultyLanguageModel(name: "cloud", pieces: [], fault: .fail(afterPieces: 0, error: ServiceError(status: 503)))
        let local = FaultyLanguageModel(name: "local", pieces: ["ok"])
        let chain = chain([cloud, local], health: health)
        var changes = health.changes.makeAsyncIterator()

        #expect(health.isHealthy("cloud"))
        _ = try await chain.completeText(request)
        #expect(await health.status(of: "cloud") == .degraded)
        #expect(!health.isHealthy("cloud") && health.isHealthy("local"))
        _ = try await chain.completeText(request)
        #expect(await health.status(of: "cloud") == .down)
        _ = try await chain.completeText(request)
        #expect(await cloud.requests.count == 2)  // resting: not called

        await cloud.setFault(.none)
        clock.advance(by: .seconds(30))
        #expect(await health.status(of: "cloud") == .recovering)
        _ = try await chain.completeText(request)
        #expect(await cloud.requests.count == 3)
        #expect(await health.status(of: "cloud") == .healthy)
        #expect(health.isHealthy("cloud"))

        var seen: [ProviderHealth<ManualClock>.Status] = []
        for _ in 0..<4 { if let change = await changes.next() { seen.append(change.to) } }
        #expect(seen == [.degraded, .down, .recovering, .healthy])
    }

    @Test("a rate limit rests the provider for its Retry-After")
    func retryAfter() async throws {
        let health = ProviderHealth(clock: clock)
        let cloud = FaultyLanguageModel(name: "cloud", pieces: [], fault: .fail(afterPieces: 0, error: ServiceError(status: 429, retryAfter: .seconds(7))))
        let local = FaultyLanguageModel(name: "local", pieces: ["ok"])
        let chain = chain([cloud, local], health: health)
        _ = try await chain.completeText(request)
        clock.advance(by: .seconds(6))
        _ = try await chain.completeText(request)
        #expect(await cloud.requests.count == 1)
        clock.advance(by: .seconds(1))
        _ = try await chain.completeText(request)
        #expect(await cloud.requests.count == 2)
    }

    @Test("cancelling the consumer cancels the provider's stream")
    func consumerCancellation() async throws {
        let cloud = FaultyLanguageModel(name: "cloud", pieces: ["Par"], fault: .stall(afterPieces: 1))
        let listener = Listener()
        let task = Task { await listener.listen(to: chain([cloud]).complete(request)) }
        await eventually { await listener.heard == "Par" }
        task.cancel()
        await task.value
        await eventually { await cloud.cancellations == 1 }
    }

    @Test("image requests skip providers that cannot read images")
    func images() async throws {
        let textOnly = FaultyLanguageModel(name: "text", pieces: ["no"])
        let vision = FaultyLanguageModel(name: "vision", pieces: ["a cat"], supportsImages: true)
        let picture = ChatRequest(messages: [ChatMessage(role: .user, parts: [.text("What is this?"), .image(data: Data([1, 2]), mimeType: "image/png")])])
        #expect(try await chain([textOnly, vision]).completeText(picture).text == "a cat")
        #expect(await textOnly.requests.isEmpty)
    }
}
