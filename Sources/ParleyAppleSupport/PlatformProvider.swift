import ParleyCore

/// One of the platform's own engines as Parley's provider catalog lists it: what it serves, its
/// name in selections and reports, the settings it reads, what to do when it cannot serve, and
/// how to build it.
///
/// `ParleyApple` describes Apple's engines with it (`AppleProviders.standard`, only on Apple
/// platforms), and `ParleyRuntime` turns each into a catalog entry placed among the on-device
/// providers. It lives here, with no Apple type in it, so that both sides and the placement are
/// compiled and tested on Linux.
public struct PlatformProvider: Sendable {
    /// Builds the provider. The argument reads a setting by name (`nil` when unset).
    public enum Factory: Sendable {
        /// A language model.
        case languageModel(@Sendable (_ setting: @Sendable (String) -> String?) -> any LanguageModelProvider)
        /// Speech to text.
        case speechToText(@Sendable (_ setting: @Sendable (String) -> String?) -> any SpeechToTextProvider)
        /// Text to speech.
        case textToSpeech(@Sendable (_ setting: @Sendable (String) -> String?) -> any TextToSpeechProvider)
    }

    /// Its name in selections and reports (`apple`); unique within its capability.
    public var name: String
    /// The settings it reads.
    public var variables: [String]
    /// The model it uses, when it names one.
    public var defaultModel: String?
    /// What to do so that it can serve (said when it cannot).
    public var remedy: String
    /// Builds it.
    public var factory: Factory

    /// Describes an engine.
    public init(name: String, variables: [String] = [], defaultModel: String? = nil, remedy: String, factory: Factory) {
        self.name = name
        self.variables = variables
        self.defaultModel = defaultModel
        self.remedy = remedy
        self.factory = factory
    }
}

/// A language model that cannot serve here, and says why: what the catalog builds for an engine
/// the running system is too old for (Foundation Models before iOS and macOS 26).
public struct UnavailableLanguageModel: LanguageModelProvider {
    public let identity: ProviderIdentity
    public let capabilities = LanguageModelCapabilities()
    private let why: Availability

    /// A stand-in named `identity` that always answers `availability`.
    public init(identity: ProviderIdentity, availability: Availability) {
        self.identity = identity
        self.why = availability
    }

    public func availability() async -> Availability { why }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let error = ProviderError.unavailable(provider: identity.description, why)
        return AsyncThrowingStream { $0.finish(throwing: error) }
    }
}
