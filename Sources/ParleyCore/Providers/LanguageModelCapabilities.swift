/// What a language model can do with a request, as its provider declares it.
///
/// Every ``LanguageModelProvider`` states the truth about its adapter: a feature is declared
/// only when Parley sends it on the wire and the model honours it. A request's needs
/// (``ChatRequest/requirements``) are checked against these before it is sent, so nothing is
/// silently dropped: chains and the router pick only providers that can serve the request,
/// and a provider asked directly for something it cannot do throws
/// ``UnsupportedCapabilityError``.
public struct LanguageModelCapabilities: Sendable, Equatable, Hashable {
    /// One thing a request may need from a model.
    public enum Feature: String, Sendable, Hashable, Codable, CaseIterable, Comparable, CustomStringConvertible {
        /// Reading image parts of messages.
        case images
        /// Replying in JSON that follows a schema (``ChatRequest/responseSchema``).
        case jsonSchema = "json_schema"
        /// Calling tools the request declares.
        case tools

        /// What a model without the feature cannot do, e.g. "read images".
        public var description: String {
            switch self {
            case .images: "read images"
            case .jsonSchema: "follow a JSON schema (structured output)"
            case .tools: "call tools"
            }
        }

        /// How to get a provider that has the feature.
        public var remedy: String {
            switch self {
            case .images:
                "configure a vision provider (OPENAI_API_KEY, ANTHROPIC_API_KEY, or an Ollama vision model)"
            case .jsonSchema:
                "configure a provider with structured output (OPENAI_API_KEY or an OpenAI-compatible server, or Ollama)"
            case .tools:
                "use the on-device model, or configure a provider that calls tools (OPENAI_API_KEY or an OpenAI-compatible server, ANTHROPIC_API_KEY, or Ollama)"
            }
        }

        public static func < (lhs: Feature, rhs: Feature) -> Bool {
            (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
        }
    }

    /// Whether the model reads image parts.
    public var images: Bool
    /// Whether the model follows a JSON schema for its reply.
    public var jsonSchema: Bool
    /// Whether the model calls tools.
    public var tools: Bool
    /// The context window in tokens, when known.
    public var contextTokens: Int?

    /// Creates a declaration; everything is off unless stated.
    public init(images: Bool = false, jsonSchema: Bool = false, tools: Bool = false, contextTokens: Int? = nil) {
        self.images = images
        self.jsonSchema = jsonSchema
        self.tools = tools
        self.contextTokens = contextTokens
    }

    /// Plain text in, text out.
    public static let textOnly = LanguageModelCapabilities()

    /// Whether the model has `feature`.
    public func supports(_ feature: Feature) -> Bool {
        switch feature {
        case .images: images
        case .jsonSchema: jsonSchema
        case .tools: tools
        }
    }

    /// The features the model has.
    public var features: Set<Feature> {
        Set(Feature.allCases.filter(supports))
    }

    /// The features in `needs` the model lacks, in a stable order (empty when it can serve).
    public func missing(_ needs: Set<Feature>) -> [Feature] {
        needs.filter { !supports($0) }.sorted()
    }

    /// What `request` needs that the model lacks (empty when it can serve the request).
    public func missing(for request: ChatRequest) -> [Feature] {
        missing(request.requirements)
    }

    /// Whether the model can serve `request`.
    public func satisfies(_ request: ChatRequest) -> Bool {
        missing(for: request).isEmpty
    }

    /// What either model can do: each feature either has, and the larger context window.
    public func union(_ other: LanguageModelCapabilities) -> LanguageModelCapabilities {
        let context: Int? =
            switch (contextTokens, other.contextTokens) {
            case (let mine?, let theirs?): max(mine, theirs)
            case (let known?, nil), (nil, let known?): known
            case (nil, nil): nil
            }
        return LanguageModelCapabilities(
            images: images || other.images, jsonSchema: jsonSchema || other.jsonSchema,
            tools: tools || other.tools, contextTokens: context)
    }

    /// What any of `capabilities` can do (``textOnly`` for none).
    public static func union(of capabilities: some Sequence<LanguageModelCapabilities>) -> LanguageModelCapabilities {
        capabilities.reduce(into: LanguageModelCapabilities.textOnly) { $0 = $0.union($1) }
    }
}

extension ChatRequest {
    /// What the request needs from a model: images when a message carries an image part,
    /// JSON schema when ``responseSchema`` is set, tools when the model may call some or the
    /// history holds tool calls and results.
    public var requirements: Set<LanguageModelCapabilities.Feature> {
        var needs: Set<LanguageModelCapabilities.Feature> = []
        if hasImages { needs.insert(.images) }
        if responseSchema != nil { needs.insert(.jsonSchema) }
        if offersTools || messages.contains(where: \.isToolExchange) { needs.insert(.tools) }
        return needs
    }
}

extension LanguageModelProvider {
    /// Throws ``UnsupportedCapabilityError`` when `request` needs something this provider
    /// cannot do. Providers call it before sending a request.
    public func checkCapabilities(for request: ChatRequest) throws(UnsupportedCapabilityError) {
        let missing = capabilities.missing(for: request)
        guard missing.isEmpty else {
            throw UnsupportedCapabilityError(missing: missing, providers: [identity.description])
        }
    }
}
