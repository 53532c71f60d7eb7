/// Why the runtime could not assemble what was asked.
public enum RuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider of the capability has that name.
    case unknownProvider(String, capability: ProviderCapability, known: [String])
    /// The selection cannot be combined with that option.
    case invalidSelection(String)
    /// The language model to switch to cannot be used.
    case unusableModel(String)
    /// The provider named is not set up here (no key, no server): it is not asked.
    case notConfigured(String, capability: ProviderCapability, remedy: String)

    public var description: String {
        switch self {
        case .unknownProvider(let name, let capability, let known):
            return "There is no \(capability) provider named \(name); use one of: \(known.joined(separator: ", "))."
        case .invalidSelection(let reason), .unusableModel(let reason):
            return reason
        case .notConfigured(let name, let capability, let remedy):
            return "The \(capability) provider \(name) is not set up on this server (\(remedy)); name another, or auto."
        }
    }
}
