/// Names a provider for logs, reports and routing: e.g. `llama.cpp` with model `SmolLM2-135M`.
public struct ProviderIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The engine or service, e.g. `whisper.cpp`, `openai`.
    public var name: String
    /// The model or voice it runs, if any.
    public var model: String?
    /// Whether requests stay on this machine.
    public var isLocal: Bool

    /// Creates an identity.
    public init(name: String, model: String? = nil, isLocal: Bool) {
        self.name = name
        self.model = model
        self.isLocal = isLocal
    }

    public var description: String {
        model.map { "\(name) (\($0))" } ?? name
    }
}

/// What every provider has in common.
public protocol Provider: Sendable {
    /// Who this provider is.
    var identity: ProviderIdentity { get }
    /// Whether it can serve now, with the reason if not. Never throws; may do cheap checks
    /// such as looking for a model file or a key, but loads nothing heavy.
    func availability() async -> Availability
}
