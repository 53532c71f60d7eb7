import Foundation
import Logging
import ParleyTesting
import Testing
@testable import ParleyCore

/// A monitor that reports whatever the test sets.
actor FixedResourceMonitor: ResourceMonitor {
    var current: ResourceSnapshot
    init(_ snapshot: ResourceSnapshot) { current = snapshot }
    func set(_ snapshot: ResourceSnapshot) { current = snapshot }
    func snapshot() -> ResourceSnapshot { current }
}

/// A scripted model that can be loaded and unloaded.
actor UnloadableScriptedModel: UnloadableLanguageModel {
    nonisolated let identity = ProviderIdentity(name: "local-big", isLocal: true)
    nonisolated let capabilities = LanguageModelCapabilities.textOnly
    private let inner = ScriptedLanguageModel(name: "local-big", replies: [["From the big local model."]])
    private(set) var isLoaded = true
    private(set) var unloads = 0

    nonisolated func availability() async -> Availability { .ready }
    func unload() {
        isLoaded = false
        unloads += 1
    }
    nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> { inner.complete(request) }
}

@Suite("Resource adaptation")
struct ResourcePolicyTests {
    let gigabyte: UInt64 = 1 << 30
    let policy = ResourcePolicy()

    @Test("enough free memory and a cool device: run")
    func plenty() {
        let snapshot = ResourceSnapshot(availableMemory: 8 * gigabyte, totalMemory: 16 * gigabyte, memoryPressure: 0.5, thermalState: .fair)
        #expect(policy.assess(snapshot, modelBytes: gigabyte, isLoaded: false) == .run)
    }

    @Test("too little free memory to load: avoid, saying how much is missing; a loaded model keeps running")
    func tooLittleToLoad() {
        let snapshot = ResourceSnapshot(availableMemory: gigabyte, memoryPressure: 0)
        guard case .avoid(let reason, let unload) = policy.assess(snapshot, modelBytes: gigabyte, isLoaded: false) else {
            Issue.record("expected avoid")
            return
        }
        #expect(reason == "1024 MB free, 1536 MB needed")
        #expect(!unload)
        #expect(policy.assess(snapshot, modelBytes: gigabyte, isLoaded: true) == .run)
    }

    @Test(
        "memory pressure: moderate avoids loading; severe unloads",
        arguments: [
            (30.0, false, ResourcePolicy.Assessment.avoid(reason: "memory pressure is 30%", unload: false)),
            (30.0, true, .run),
            (75.0, true, .avoid(reason: "memory pressure is 75%", unload: true)),
        ])
    func pressure(pressure: Double, loaded: Bool, expected: ResourcePolicy.Assessment) {
        let snapshot = ResourceSnapshot(availableMemory: 64 * gigabyte, memoryPressure: pressure)
        #expect(policy.assess(snapshot, modelBytes: gigabyte, isLoaded: loaded) == expected)
    }

    @Test("a serious or critical thermal state unloads; fair does not")
    func thermal() {
        #expect(policy.assess(ResourceSnapshot(thermalState: .fair), modelBytes: gigabyte, isLoaded: true) == .run)
        #expect(
            policy.assess(ResourceSnapshot(thermalState: .serious), modelBytes: gigabyte, isLoaded: true)
                == .avoid(reason: "the device is running serious hot", unload: true))
        #expect(
            policy.assess(ResourceSnapshot(thermalState: .critical), modelBytes: gigabyte, isLoaded: true)
                == .avoid(reason: "the device is running critical hot", unload: true))
    }

    @Test("a hot machine steps down to the small model, and back once it has run cool for the cool-down (manual clock)")
    func heatStepsDown() async throws {
        let clock = ManualClock()
        let big = UnloadableScriptedModel()
        let monitor = FixedResourceMonitor(ResourceSnapshot(availableMemory: 64 * gigabyte, thermalState: .serious))
        let guarded = ResourceGuardedLanguageModel(big, modelBytes: gigabyte, monitor: monitor, coolDown: .seconds(60), clock: clock)
        let small = ScriptedLanguageModel(name: "local-small", replies: [["From the small model."]])
        let chain = LanguageModelChain(providers: [guarded, small], health: ProviderHealth(clock: clock), clock: clock)

        #expect(try await chain.completeText(ChatRequest(messages: [.user("hi")])).text == "From the small model.")
        #expect(await big.unloads == 1)
        // Cooler, but not for long enough: still the small one.
        await monitor.set(ResourceSnapshot(availableMemory: 64 * gigabyte, thermalState: .fair))
        clock.advance(by: .seconds(30))
        #expect(try await chain.completeText(ChatRequest(messages: [.user("hi")])).text == "From the small model.")
        #expect(await guarded.availability() == .insufficientResources(reason: "the device is cooling down after running hot"))
        // A minute after it was last seen hot, the big model answers again.
        clock.advance(by: .seconds(31))
        #expect(try await chain.completeText(ChatRequest(messages: [.user("hi")])).text == "From the big local model.")
        // Hot again: down again, at once.
        await monitor.set(ResourceSnapshot(availableMemory: 64 * gigabyte, thermalState: .critical))
        clock.advance(by: .seconds(11))
        #expect(try await chain.completeText(ChatRequest(messages: [.user("hi")])).text == "From the small model.")
    }

    @Test("under pressure the chain answers from the next provider with a warning, unloads the local model, and returns to it once memory recovers")
    func chainDowngrades() async throws {
        let logs = CapturedLogs()
        let clock = ManualClock()
        let big = UnloadableScriptedModel()
        let monitor = FixedResourceMonitor(ResourceSnapshot(availableMemory: 64 * gigabyte, memoryPressure: 80))
        let guarded = ResourceGuardedLanguageModel(big, modelBytes: gigabyte, monitor: monitor, logger: logs.logger(label: "resources"))
        let small = ScriptedLanguageModel(name: "local-small", replies: [["From the small model."]])
        let chain = LanguageModelChain(
            providers: [guarded, small], health: ProviderHealth(clock: clock), clock: clock,
            logger: logs.logger(label: "chain"))

        let first = try await chain.completeText(ChatRequest(messages: [.user("hi")]))
        #expect(first.text == "From the small model.")
        #expect(await big.unloads == 1)
        #expect(logs.messages(at: .warning).contains { $0.contains("[LLM] local-big") && $0.contains("memory pressure is 80%") && $0.contains("local-small") })

        // Memory recovers; after the resting time the big model serves again.
        await monitor.set(ResourceSnapshot(availableMemory: 64 * gigabyte, memoryPressure: 0))
        clock.advance(by: .seconds(11))
        let second = try await chain.completeText(ChatRequest(messages: [.user("hi")]))
        #expect(second.text == "From the big local model.")
    }
}
