import Foundation
import ParleyTesting
import Testing
@testable import ParleyCore

@Suite("Language-model capabilities")
struct CapabilityTests {
    static let picture = ChatMessage(role: .user, parts: [.text("What is this?"), .image(data: Data([1, 2]), mimeType: "image/png")])
    static let schema = ResponseSchema(name: "city", schema: .object(["type": .string("object")]))

    static func request(images: Bool = false, schema: Bool = false) -> ChatRequest {
        ChatRequest(messages: [images ? picture : .user("Capital of France?")], responseSchema: schema ? Self.schema : nil)
    }

    @Test(
        "a request needs images when a message has an image part, and JSON schema when it sets one",
        arguments: [
            (false, false, [LanguageModelCapabilities.Feature]()), (true, false, [.images]),
            (false, true, [.jsonSchema]), (true, true, [.images, .jsonSchema]),
        ])
    func requirements(images: Bool, schema: Bool, expected: [LanguageModelCapabilities.Feature]) {
        let request = Self.request(images: images, schema: schema)
        #expect(request.requirements == Set(expected))
        #expect(LanguageModelCapabilities.textOnly.missing(for: request) == expected)
        #expect(LanguageModelCapabilities.textOnly.satisfies(request) == expected.isEmpty)
        #expect(LanguageModelCapabilities(images: true, jsonSchema: true).satisfies(request))
    }

    @Test("what is missing is named in a stable order; the union has what either has")
    func missingAndUnion() {
        let vision = LanguageModelCapabilities(images: true, contextTokens: 8_000)
        let structured = LanguageModelCapabilities(jsonSchema: true, contextTokens: 32_000)
        #expect(vision.missing([.tools, .jsonSchema, .images]) == [.jsonSchema, .tools])
        #expect(vision.features == [.images])
        let both = vision.union(structured)
        #expect(both == LanguageModelCapabilities(images: true, jsonSchema: true, contextTokens: 32_000))
        #expect(LanguageModelCapabilities.union(of: []) == .textOnly)
        #expect(LanguageModelCapabilities.union(of: [vision, .textOnly]).contextTokens == 8_000)
    }

    @Test("the error names the provider, what it cannot do and what to configure")
    func errorDescriptions() {
        let one = UnsupportedCapabilityError(missing: [.images], providers: ["llama.cpp (SmolLM2)"])
        #expect(
            one.description == "llama.cpp (SmolLM2) cannot read images; configure a vision provider "
                + "(OPENAI_API_KEY, ANTHROPIC_API_KEY, or an Ollama vision model).")
        let many = UnsupportedCapabilityError(missing: [.jsonSchema], providers: ["anthropic (claude)", "llama.cpp (SmolLM2)"])
        #expect(
            many.description.hasPrefix(
                "No configured language model can follow a JSON schema (structured output) "
                    + "(tried anthropic (claude), llama.cpp (SmolLM2)); configure a provider with structured output"))
        #expect(UnsupportedCapabilityError(missing: [.images], providers: []).description.hasPrefix("No language model is configured that can read images"))
        #expect(one.failureKind == .configuration)
    }

    @Test("a provider asked directly for what it lacks says so")
    func directCheck() async throws {
        let model = ScriptedLanguageModel(name: "text", replies: [["ok"]])
        #expect(throws: UnsupportedCapabilityError(missing: [.images, .jsonSchema], providers: ["text"])) {
            try model.checkCapabilities(for: Self.request(images: true, schema: true))
        }
        try model.checkCapabilities(for: Self.request())
    }

    @Test("the test doubles keep the supportsImages spelling")
    func doubles() {
        #expect(ScriptedLanguageModel(replies: [], supportsImages: true).capabilities == LanguageModelCapabilities(images: true))
        #expect(FaultyLanguageModel(name: "f", pieces: [], supportsImages: true).capabilities.images)
        #expect(ScriptedLanguageModel(replies: []).capabilities == .textOnly)
    }
}

@Suite("Chains and the router choose providers by capability")
struct CapabilityRoutingTests {
    let clock = ManualClock()

    func chain(_ providers: [any LanguageModelProvider]) -> LanguageModelChain<ManualClock> {
        LanguageModelChain(providers: providers, health: ProviderHealth(clock: clock), clock: clock)
    }

    @Test("a chain reports the union of its providers' capabilities")
    func chainUnion() {
        let vision = FaultyLanguageModel(name: "vision", pieces: [], capabilities: .init(images: true, contextTokens: 4_096))
        let structured = FaultyLanguageModel(name: "structured", pieces: [], capabilities: .init(jsonSchema: true))
        #expect(chain([vision, structured]).capabilities == LanguageModelCapabilities(images: true, jsonSchema: true, contextTokens: 4_096))
        #expect(chain([]).capabilities == .textOnly)
    }

    @Test("a schema request skips providers without structured output")
    func schemaSkips() async throws {
        let textOnly = FaultyLanguageModel(name: "text", pieces: ["free text"])
        let structured = FaultyLanguageModel(name: "structured", pieces: [#"{"city":"Paris"}"#], capabilities: .init(jsonSchema: true))
        let reply = try await chain([textOnly, structured]).completeText(CapabilityTests.request(schema: true))
        #expect(reply.text == #"{"city":"Paris"}"#)
        #expect(await textOnly.requests.isEmpty)
    }

    @Test("when no provider can serve, the chain fails at once naming the capability and the providers")
    func noneCapable() async throws {
        let first = FaultyLanguageModel(name: "first", pieces: ["no"])
        let second = FaultyLanguageModel(name: "second", pieces: ["no"], capabilities: .init(jsonSchema: true))
        let error = await #expect(throws: UnsupportedCapabilityError.self) {
            _ = try await chain([first, second]).completeText(CapabilityTests.request(images: true))
        }
        #expect(error == UnsupportedCapabilityError(missing: [.images], providers: ["first", "second"]))
        #expect(await first.requests.isEmpty)
        #expect(await second.requests.isEmpty)
    }

    @Test("a provider that refuses for lack of a capability is passed over without being rested")
    func refusalIsNotAFault() async throws {
        let refusal = UnsupportedCapabilityError(missing: [.images], providers: ["liar"])
        let liar = FaultyLanguageModel(
            name: "liar", pieces: [], fault: .fail(afterPieces: 0, error: refusal),
            capabilities: .init(images: true))
        let honest = FaultyLanguageModel(name: "honest", pieces: ["a cat"], capabilities: .init(images: true))
        let health = ProviderHealth(clock: clock)
        let chain = LanguageModelChain(providers: [liar, honest], health: health, clock: clock)
        #expect(try await chain.completeText(CapabilityTests.request(images: true)).text == "a cat")
        #expect(await health.status(of: "liar") == .healthy)
    }

    @Test("a guarded local model declares what it guards")
    func guarded() {
        let inner = ScriptedLanguageModel(name: "local", replies: [], capabilities: .init(contextTokens: 2_048))
        let guarded = ResourceGuardedLanguageModel(UnloadableWrapper(inner), modelBytes: 1, monitor: FixedResourceMonitor(ResourceSnapshot()))
        #expect(guarded.capabilities == LanguageModelCapabilities(contextTokens: 2_048))
    }

    @Test("the router keeps only providers that have what the request needs")
    func router() throws {
        let router = Router(
            policy: RoutingPolicy(defaultChain: ["anthropic", "openai", "llama.cpp"]),
            providers: [
                "anthropic": ProviderTraits(isLocal: false, capabilities: .init(images: true)),
                "openai": ProviderTraits(isLocal: false, capabilities: .init(images: true, jsonSchema: true)),
                "llama.cpp": ProviderTraits(isLocal: true),
            ])
        let structured = try router.route(CapabilityTests.request(schema: true))
        #expect(structured.providers == ["openai"])
        #expect(structured.rules.last == "needs to follow a JSON schema (structured output): capable providers only")
        #expect(try router.route(CapabilityTests.request(images: true)).providers == ["anthropic", "openai"])
        #expect(throws: RoutingError.unsupported(UnsupportedCapabilityError(missing: [.jsonSchema], providers: ["llama.cpp"]))) {
            try router.route(ChatRequest(messages: [.user("hi")], forcedProvider: "llama.cpp", responseSchema: CapabilityTests.schema))
        }
    }

    @Test("a schema request uses the structured-output chain when its task has none")
    func structuredChain() throws {
        let router = Router(
            policy: RoutingPolicy(defaultChain: ["a", "b"], chains: [.structuredOutput: ["b"]]),
            providers: [
                "a": ProviderTraits(isLocal: false, capabilities: .init(jsonSchema: true)),
                "b": ProviderTraits(isLocal: false, capabilities: .init(jsonSchema: true)),
            ])
        #expect(try router.route(CapabilityTests.request(schema: true)).providers == ["b"])
        #expect(try router.route(CapabilityTests.request()).providers == ["a", "b"])
    }

    @Test("the routed model fails with the capability error when no configured provider can serve")
    func routedModel() async throws {
        let local = ScriptedLanguageModel(name: "local", replies: [["text"]])
        let routed = RoutedLanguageModel(
            providers: [local], policy: RoutingPolicy(defaultChain: ["local"]),
            health: ProviderHealth(clock: clock), clock: clock)
        #expect(routed.capabilities == .textOnly)
        await #expect(throws: UnsupportedCapabilityError(missing: [.images], providers: ["local"])) {
            _ = try await routed.completeText(CapabilityTests.request(images: true))
        }
        #expect(await local.requests.isEmpty)
    }
}

/// Makes any model unloadable, for wrapping in a resource guard.
private struct UnloadableWrapper: UnloadableLanguageModel {
    let inner: any LanguageModelProvider
    init(_ inner: any LanguageModelProvider) { self.inner = inner }
    var identity: ProviderIdentity { inner.identity }
    var capabilities: LanguageModelCapabilities { inner.capabilities }
    var isLoaded: Bool { true }
    func unload() async {}
    func availability() async -> Availability { .ready }
    func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> { inner.complete(request) }
}
