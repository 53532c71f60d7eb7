import Foundation
import ParleyCore
import ParleyRuntime
import ParleyTesting
import Testing

/// A provider whose availability a test switches.
final class SwitchableModel: LanguageModelProvider, @unchecked Sendable {
    let identity = ProviderIdentity(name: "flaky", model: "m1", isLocal: false)
    let capabilities = LanguageModelCapabilities.textOnly
    private let lock = NSLock()
    private var up = true
    private var asked = 0

    func set(up: Bool) { lock.withLock { self.up = up } }

    /// How many times its availability was asked.
    var probes: Int { lock.withLock { asked } }

    func availability() async -> Availability {
        lock.withLock {
            asked += 1
            return up
        } ? .ready : .serverUnreachable(url: "http://127.0.0.1:9", reason: "refused")
    }

    func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(.text("ok"))
            continuation.yield(.finished(.stop, Usage()))
            continuation.finish()
        }
    }
}

@Suite("runtime health: shared registries, background probes on a test clock")
struct RuntimeHealthTests {
    @Test("a provider marked down recovers through a background probe, and the change is reported")
    func probeRecovers() async throws {
        let flaky = SwitchableModel()
        let catalog = ProviderCatalog(entries: [
            ProviderEntry(
                capability: .languageModel, name: "flaky", placement: .selfHosted, variables: ["FLAKY_URL"],
                configuredBy: ["FLAKY_URL"], remedy: "set FLAKY_URL", factory: .languageModel { _ in flaky }),
            ProviderEntry(
                capability: .languageModel, name: "local", placement: .onDevice, remedy: "none",
                factory: .languageModel { _ in ScriptedLanguageModel(replies: [["local"]]) }),
        ])
        let clock = ManualClock()
        let runtime = Runtime(settings: RuntimeSettings(values: ["FLAKY_URL": "x"]), catalog: catalog, clock: clock)
        let health = runtime.health(of: .languageModel)
        let changes = await runtime.healthChanges()
        for _ in 0..<3 { await health.recordFailure("flaky (m1)", kind: .transient(retryAfter: nil), reason: "HTTP 503") }
        #expect(await health.status(of: "flaky (m1)") == .down)

        flaky.set(up: false)
        await runtime.startProbing(every: .seconds(5))
        await clock.waitForSleepers()
        #expect(await health.status(of: "flaky (m1)") == .down)  // the probe found it still down

        flaky.set(up: true)
        clock.advance(by: .seconds(5))
        var iterator = changes.makeAsyncIterator()
        var recovered = false
        while let change = await iterator.next() {
            if change.change.to == .healthy {
                #expect(change.capability == .languageModel && change.change.provider == "flaky (m1)")
                recovered = true
                break
            }
        }
        #expect(recovered)
        #expect(await health.status(of: "flaky (m1)") == .healthy)
        // The chain uses it again.
        let chain = try await runtime.languageModel()
        #expect(try await chain.completeText(ChatRequest(messages: [.user("hi")])).text == "ok")
        await runtime.stopProbing()
    }

    @Test("a dead server is probed less and less often, and at the interval again once it answers")
    func probesBackOff() async throws {
        let flaky = SwitchableModel()
        let catalog = ProviderCatalog(entries: [
            ProviderEntry(
                capability: .languageModel, name: "flaky", placement: .selfHosted, variables: ["FLAKY_URL"],
                configuredBy: ["FLAKY_URL"], remedy: "set FLAKY_URL", factory: .languageModel { _ in flaky })
        ])
        let clock = ManualClock()
        let runtime = Runtime(settings: RuntimeSettings(values: ["FLAKY_URL": "x"]), catalog: catalog, clock: clock)
        flaky.set(up: false)
        await runtime.startProbing(every: .seconds(5))
        await clock.waitForSleepers()
        // 80 seconds of 5-second ticks: probed at 0, 5, 15, 35 and 75 s, not 17 times.
        for _ in 0..<16 {
            clock.advance(by: .seconds(5))
            await clock.waitForSleepers()
        }
        #expect(flaky.probes == 5)
        flaky.set(up: true)
        for _ in 0..<15 {  // the next probe (at 155 s) finds it up
            clock.advance(by: .seconds(5))
            await clock.waitForSleepers()
        }
        let answered = flaky.probes
        #expect(answered == 6)
        for _ in 0..<4 {
            clock.advance(by: .seconds(5))
            await clock.waitForSleepers()
        }
        #expect(flaky.probes == answered + 4)
        await runtime.stopProbing()
    }

    @Test("every chain a runtime builds shares its capability's health registry")
    func chainsShareHealth() async throws {
        let runtime = runtime(everyKey)
        let first = try #require(try runtime.speechToText() as? SpeechToTextChain<ContinuousClock>)
        // The first conversation's chain finds Deepgram's server dead…
        _ = try? await first.transcribe(AudioBuffer(samples: [Float](repeating: 0.1, count: 1_600), sampleRate: 16_000), options: .init())
        let deepgram = try #require(first.providers.first?.identity.description)
        let status = await runtime.health(of: .speechToText).status(of: deepgram)
        #expect(status != .healthy)
        // …and a second chain made later skips it from the same registry.
        let report = await runtime.report()
        let row = try #require(report.first { $0.capability == .speechToText }?.chain.first)
        #expect(row.health == status.rawValue)
    }
}
