/// A request needs something no provider asked can do: read images, follow a JSON schema,
/// call tools.
///
/// A provider asked directly throws it with itself as the only provider; a chain or the router
/// throws it, naming every provider considered, when none of them can serve the request. A
/// fallback chain that meets it from one provider moves on to the next without marking the
/// provider unhealthy.
public struct UnsupportedCapabilityError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// What the request needs that was missing, in a stable order.
    public var missing: [LanguageModelCapabilities.Feature]
    /// The providers that lack it, by name (e.g. "llama.cpp (SmolLM2)").
    public var providers: [String]

    /// Creates the error.
    public init(missing: [LanguageModelCapabilities.Feature], providers: [String]) {
        self.missing = missing
        self.providers = providers
    }

    /// Not a fault of the provider, and not fixed by retrying it: another provider may serve.
    public var failureKind: FailureKind { .configuration }

    public var description: String {
        let remedy = missing.map(\.remedy).joined(separator: "; ")
        // One provider lacks each feature listed; of several, none has them all.
        let needed = missing.map(\.description).joined(separator: " and ")
        switch providers.count {
        case 0:
            return "No language model is configured that can \(needed); \(remedy)."
        case 1:
            return "\(providers[0]) cannot \(missing.map(\.description).joined(separator: " or ")); \(remedy)."
        default:
            return "No configured language model can \(needed) (tried \(providers.joined(separator: ", "))); \(remedy)."
        }
    }
}
