/// Why the runtime could not assemble what was asked.
public enum RuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider of the capability has that name.
    case unknownProvider(String, capability: ProviderCapability, known: [String])
    /// The selection cannot be combined with that option.
    case invalidSelection(String)
    /// The language model to switch to cannot be used.
    case unusableModel(String)

    public var description: String {
        switch self {
        case .unknownProvider(let name, let capability, let known):
            return "There is no \(capability) provider named \(name); use one of: \(known.joined(separator: ", "))."
        case .invalidSelection(let reason), .unusableModel(let reason):
            return reason
        }
    }
}
