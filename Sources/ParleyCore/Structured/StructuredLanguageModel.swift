/// A ``StructuredGenerator`` seen as a language model, for faces that speak in chat requests
/// (the server's `response_format`): a request with a response schema gets one validated
/// value as its text, after any repair round or failover; who made it comes first as a
/// `.provider` event. The value arrives whole, once it is known to be valid, so a client
/// never receives JSON that a later provider would replace.
public struct StructuredLanguageModel<C: Clock>: LanguageModelProvider where C.Duration == Duration {
    /// The generator behind it.
    public let generator: StructuredGenerator<C>
    public let identity = ProviderIdentity(name: "structured", isLocal: false)

    /// Creates the adapter.
    public init(generator: StructuredGenerator<C>) {
        self.generator = generator
    }

    /// What the generator's providers can do, with JSON schemas.
    public var capabilities: LanguageModelCapabilities {
        var union = LanguageModelCapabilities.union(of: generator.providers.map(\.capabilities))
        union.jsonSchema = true
        return union
    }

    public func availability() async -> Availability {
        await firstReady(generator.providers)
    }

    /// The generator's providers, most preferred first.
    public func members(for request: ChatRequest) -> [any LanguageModelProvider] { generator.providers }

    /// Answers `request` (which must carry a response schema) with the validated value's text.
    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { output in
            guard let response = request.responseSchema else {
                throw ProviderError.invalidInput("A structured request needs a response schema.")
            }
            let schema: JSONSchema
            do { schema = try JSONSchema(json: response.schema) } catch { throw ProviderError.invalidInput("\(error)") }
            let structured = StructuredRequest(
                messages: request.messages, schema: schema, name: response.name,
                sampling: request.sampling, task: request.task, isPrivate: request.isPrivate)
            let result = try await generator.generate(structured)
            output.yield(.provider(result.provider))
            output.yield(.text(result.value.text))
            output.yield(.finished(.stop, result.usage))
        }
    }
}
