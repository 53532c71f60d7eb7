/// A speech request names a voice this provider does not have (an espeak-ng voice asked of a
/// neural engine, say).
///
/// A fallback chain that meets it moves on to the next provider, which may have the voice,
/// without marking this one unhealthy: the next request, in another voice, may be its.
public struct UnsupportedVoiceError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// The provider asked, by name (e.g. "sherpa-onnx (en_US-joe-medium)").
    public var provider: String
    /// The voice asked for.
    public var voice: String
    /// The voices the provider has.
    public var available: [String]

    /// Creates the error.
    public init(provider: String, voice: String, available: [String]) {
        self.provider = provider
        self.voice = voice
        self.available = available
    }

    /// Not a fault of the provider, and not fixed by retrying it: another provider may serve.
    public var failureKind: FailureKind { .configuration }

    public var description: String {
        let choices = available.isEmpty ? "it has none installed" : "choose one of \(available.joined(separator: ", "))"
        return "\(provider) has no voice named \(voice): \(choices)"
    }
}
