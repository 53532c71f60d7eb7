import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// Each provider declares what it can do, and refuses, before sending anything, a request that
/// needs more: nothing is dropped on the way to the server.
@Suite("Provider capabilities")
struct ProviderCapabilityTests {
    static let schema = ResponseSchema(name: "answer", schema: .object(["type": .string("object")]))

    static var schemaRequest: ChatRequest {
        var request = plainRequest
        request.responseSchema = schema
        return request
    }

    /// A server that fails the test if anything reaches it.
    static func untouchedServer() async throws -> WireServer {
        try await WireServer.start { _ in .json(500, #"{"error":"should not be called"}"#) }
    }

    @Test("what each provider declares")
    func declarations() {
        let openAI = OpenAILanguageModel(configuration: .init(apiKey: "k"))
        #expect(openAI.capabilities == LanguageModelCapabilities(images: true, jsonSchema: true, tools: true))
        let server = OpenAILanguageModel(
            configuration: .init(
                baseURL: "http://127.0.0.1:8080/v1", supportsImages: false,
                supportsJSONSchema: false, supportsTools: false, contextTokens: 4_096))
        #expect(server.capabilities == LanguageModelCapabilities(contextTokens: 4_096))
        let anthropic = AnthropicLanguageModel(configuration: .init(apiKey: "k"))
        #expect(anthropic.capabilities == LanguageModelCapabilities(images: true, jsonSchema: true, tools: true))
        #expect(OllamaLanguageModel(configuration: .init()).capabilities == LanguageModelCapabilities(jsonSchema: true, tools: true))
        #expect(
            OllamaLanguageModel(configuration: .init(supportsImages: true, supportsTools: false, contextTokens: 8_192)).capabilities
                == LanguageModelCapabilities(images: true, jsonSchema: true, contextTokens: 8_192))
    }

    @Test("an Ollama model not marked as vision-capable refuses images")
    func ollamaImages() async throws {
        let server = try await Self.untouchedServer()
        defer { server.stop() }
        let model = OllamaLanguageModel(configuration: .init(host: server.baseURL, model: "llama3.2"))
        let error = try #require(await run(model, pictureRequest).error as? UnsupportedCapabilityError)
        #expect(error == UnsupportedCapabilityError(missing: [.images], providers: ["ollama (llama3.2)"]))
        #expect(await server.requests.isEmpty)
    }

    @Test(
        "an OpenAI-compatible server configured without images or schemas refuses them",
        arguments: [(true, LanguageModelCapabilities.Feature.images), (false, .jsonSchema)])
    func openAICompatible(picture: Bool, missing: LanguageModelCapabilities.Feature) async throws {
        let server = try await Self.untouchedServer()
        defer { server.stop() }
        let model = OpenAILanguageModel(
            configuration: .init(
                baseURL: server.baseURL + "/v1", model: "local", name: "vllm",
                supportsImages: false, supportsJSONSchema: false))
        let error = try #require(await run(model, picture ? pictureRequest : Self.schemaRequest).error as? UnsupportedCapabilityError)
        #expect(error == UnsupportedCapabilityError(missing: [missing], providers: ["vllm (local)"]))
        #expect(await server.requests.isEmpty)
    }

    @Test("Ollama sends a schema as its format")
    func ollamaSchema() async throws {
        let done = #"{"message":{"role":"assistant","content":"{}"},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":1}"#
        let server = try await WireServer.start { _ in .stream(contentType: "application/x-ndjson", chunks: [Data((done + "\n").utf8)]) }
        defer { server.stop() }
        let model = OllamaLanguageModel(configuration: .init(host: server.baseURL, model: "llama3.2"))
        let result = await run(model, Self.schemaRequest)
        #expect(result.error == nil)
        let body = try #require(await server.requests.first?.json)
        #expect((body["format"] as? [String: Any])?["type"] as? String == "object")
    }
}
