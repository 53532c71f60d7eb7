import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// The capability check runs before the model is loaded: these use a model file that does not
/// exist, so reaching llama.cpp would fail with a different error.
@Suite("llama.cpp capabilities", .onDeviceEngines)
struct LlamaCapabilityTests {
    let model = LlamaLanguageModel(configuration: .init(modelPath: "/nonexistent/SmolLM2.gguf", contextLength: 1_536, threads: 1))

    @Test("declares text, JSON schemas and tools, with its context window")
    func declaration() {
        #expect(model.capabilities == LanguageModelCapabilities(jsonSchema: true, tools: true, contextTokens: 1_536))
    }

    @Test("declares that it runs on device, prefills prompts and scores turn ends, as does the switchable model around it")
    func roles() async {
        let switchable = SwitchableLanguageModel(model)
        for provider in [model as any LanguageModelProvider, switchable] {
            #expect(provider.runsOnDevice, "\(provider.identity)")
            #expect(provider.promptPrefiller != nil && provider.turnPredictor != nil, "\(provider.identity)")
            #expect(await provider.answerer().identity == provider.identity)
        }
        #expect(await !model.isLoaded)
    }

    @Test("refuses images, and a schema it cannot use, saying what to do, without loading the model")
    func refuses() async throws {
        let picture = ChatRequest(messages: [ChatMessage(role: .user, parts: [.text("What is this?"), .image(data: Data([1]), mimeType: "image/png")])])
        let error = await #expect(throws: UnsupportedCapabilityError.self) { _ = try await model.completeText(picture) }
        #expect(error == UnsupportedCapabilityError(missing: [.images], providers: ["llama.cpp (SmolLM2)"]))
        let unusable = ChatRequest(
            messages: [.user("Capital of France?")],
            responseSchema: ResponseSchema(name: "city", schema: .object(["not": .object(["type": "string"])])))
        let invalid = await #expect(throws: ProviderError.self) { _ = try await model.completeText(unusable) }
        #expect("\(invalid.map { "\($0)" } ?? "")".contains("`not` is not supported"))
        let described = UnsupportedCapabilityError(missing: [.images], providers: [model.identity.description])
        #expect(
            described.description == "llama.cpp (SmolLM2) cannot read images; configure a vision provider "
                + "(OPENAI_API_KEY, ANTHROPIC_API_KEY, or an Ollama vision model).")
        #expect(await !model.isLoaded)
    }
}
