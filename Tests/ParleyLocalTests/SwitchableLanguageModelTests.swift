import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// Switching the on-device model while a reply is in progress, on the real engine (two
/// instances of SmolLM2-135M, so the test is quick; the server's test measures the memory).
@Suite("switching the on-device model", .serialized, .onDeviceEngines)
struct SwitchableLanguageModelTests {
    func configuration() throws -> LlamaLanguageModel.Configuration {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        return LlamaLanguageModel.Configuration(modelPath: path, contextLength: 1024, threads: 1)
    }

    @Test("a reply in progress finishes on the old model, which is then unloaded; the new one loads on its first request")
    func switchWhileReplying() async throws {
        let switchable = SwitchableLanguageModel(LlamaLanguageModel(configuration: try configuration()))
        let old = switchable.current
        let long = ChatRequest(messages: [.user("Tell me a long story about a lighthouse keeper.")], sampling: SamplingOptions(temperature: 0, maxTokens: 64))
        var stream = switchable.complete(long).makeAsyncIterator()
        var first = ""
        while first.isEmpty, let event = try await stream.next() { if case .text(let piece) = event { first = piece } }
        #expect(await old.isLoaded)

        let (switchedFrom, unloaded) = switchable.switchTo(try configuration())
        #expect(switchedFrom === old)
        #expect(switchable.current !== old)
        #expect(switchable.switches == 1)
        var rest = first
        var finish: FinishReason?
        while let event = try await stream.next() {
            if case .text(let piece) = event { rest += piece }
            if case .finished(let reason, _) = event { finish = reason }
        }
        #expect(finish == .length, "the old model wrote the whole reply: \(rest)")
        await unloaded.value
        #expect(await !old.isLoaded)
        #expect(await !switchable.current.isLoaded, "nothing loads the new model before it is asked")

        let answer = try await switchable.completeText(
            ChatRequest(
                messages: [.user("What is the capital of France?")],
                sampling: SamplingOptions(temperature: 0, maxTokens: 16)))
        #expect(answer.text.contains("Paris"))
        #expect(await switchable.current.isLoaded)
        #expect(await !old.isLoaded, "the old model was not loaded again")
        #expect(await old.loads == 1)
    }
}
