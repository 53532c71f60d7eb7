import Foundation
import ParleyCore
import Testing
@testable import ParleyLocal

/// The capability check runs before the model is loaded: these use a model file that does not
/// exist, so reaching llama.cpp would fail with a different error.
@Suite("llama.cpp capabilities")
struct LlamaCapabilityTests {
    let model = LlamaLanguageModel(configuration: .init(modelPath: "/nonexistent/SmolLM2.gguf", contextLength: 1_536, threads: 1))

    @Test("declares text only, with its context window")
    func declaration() {
        #expect(model.capabilities == LanguageModelCapabilities(contextTokens: 1_536))
    }

    @Test("refuses images and response schemas, saying what to configure, without loading the model")
    func refuses() async throws {
        let picture = ChatRequest(messages: [ChatMessage(role: .user, parts: [.text("What is this?"), .image(data: Data([1]), mimeType: "image/png")])])
        let structured = ChatRequest(messages: [.user("Capital of France?")],
                                     responseSchema: ResponseSchema(name: "city", schema: .object(["type": .string("object")])))
        for (request, missing) in [(picture, LanguageModelCapabilities.Feature.images), (structured, .jsonSchema)] {
            let error = await #expect(throws: UnsupportedCapabilityError.self) { _ = try await model.completeText(request) }
            #expect(error == UnsupportedCapabilityError(missing: [missing], providers: ["llama.cpp (SmolLM2)"]))
        }
        let error = UnsupportedCapabilityError(missing: [.images], providers: [model.identity.description])
        #expect(error.description == "llama.cpp (SmolLM2) cannot read images; configure a vision provider "
            + "(OPENAI_API_KEY, ANTHROPIC_API_KEY, or an Ollama vision model).")
        #expect(await !model.isLoaded)
    }
}
