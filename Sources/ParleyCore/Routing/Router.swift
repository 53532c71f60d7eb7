/// What the router knows about a provider.
public struct ProviderTraits: Sendable, Equatable {
    /// Requests stay on this machine.
    public var isLocal: Bool
    /// What the provider can do (images, JSON schema, tools).
    public var capabilities: LanguageModelCapabilities
    /// Costs nothing per request (local engines, self-hosted servers).
    public var isFree: Bool

    /// Creates traits.
    public init(isLocal: Bool, capabilities: LanguageModelCapabilities = .textOnly, isFree: Bool? = nil) {
        self.isLocal = isLocal
        self.capabilities = capabilities
        self.isFree = isFree ?? isLocal
    }
}

/// The routing configuration: a chain of provider names per task, and a default chain.
public struct RoutingPolicy: Sendable, Equatable {
    /// Provider names per task, most preferred first.
    public var chains: [TaskKind: [String]]
    /// The chain for tasks without their own.
    public var defaultChain: [String]

    /// Creates a policy.
    public init(defaultChain: [String], chains: [TaskKind: [String]] = [:]) {
        self.defaultChain = defaultChain
        self.chains = chains
    }
}

/// Which providers a request goes to, in order, and why.
public struct RoutingDecision: Sendable, Equatable, CustomStringConvertible {
    /// Provider names, most preferred first.
    public var providers: [String]
    /// The rules that shaped the list, in the order they applied.
    public var rules: [String]

    public var description: String {
        "\(providers.joined(separator: " → ")) (\(rules.joined(separator: "; ")))"
    }
}

/// Why a request cannot be routed.
public enum RoutingError: Error, Equatable, CustomStringConvertible {
    /// The forced provider is not configured.
    case unknownProvider(String)
    /// The rules left no provider.
    case noProvider(task: TaskKind, rules: [String])
    /// The request needs something none of the task's providers can do.
    case unsupported(UnsupportedCapabilityError)

    public var description: String {
        switch self {
        case .unknownProvider(let name):
            return "No provider named \(name) is configured."
        case .noProvider(let task, let rules):
            return "No configured provider can take this \(task.rawValue) request (\(rules.joined(separator: "; "))); configure a provider that fits."
        case .unsupported(let error):
            return error.description
        }
    }
}

/// Routes language-model requests by task and by content, and explains its choice
/// (MirrorBuddy's coordinator, ProjectOne's router):
/// a forced provider overrides everything but privacy; otherwise the task's chain applies
/// (the vision chain for images and the structured-output chain for a JSON schema, when the
/// task has none of its own), a request's needs (``ChatRequest/requirements``) keep only
/// providers that have them, private requests keep only local ones, and an exhausted budget
/// keeps only free ones.
public struct Router: Sendable {
    /// The configuration.
    public var policy: RoutingPolicy
    /// Traits of every configured provider, by name.
    public var providers: [String: ProviderTraits]

    /// Creates a router.
    public init(policy: RoutingPolicy, providers: [String: ProviderTraits]) {
        self.policy = policy
        self.providers = providers
    }

    /// Decides where `request` goes. `budgetExhausted` restricts it to free providers.
    public func route(_ request: ChatRequest, budgetExhausted: Bool = false) throws(RoutingError) -> RoutingDecision {
        var rules: [String] = []
        var names: [String]
        if let forced = request.forcedProvider {
            guard providers[forced] != nil else { throw .unknownProvider(forced) }
            names = [forced]
            rules.append("forced: \(forced)")
        } else {
            let task = chainTask(for: request)
            if let chain = policy.chains[task] {
                names = chain
                rules.append("task \(task.rawValue): its own chain")
            } else {
                names = policy.defaultChain
                rules.append("task \(task.rawValue): the default chain")
            }
        }
        names = names.filter { providers[$0] != nil }
        let needs = request.requirements
        if !needs.isEmpty {
            let considered = names
            names = names.filter { providers[$0]?.capabilities.missing(needs).isEmpty == true }
            let described = needs.sorted().map(\.description).joined(separator: " and ")
            rules.append("needs to \(described): capable providers only")
            if names.isEmpty {
                throw .unsupported(UnsupportedCapabilityError(missing: needs.sorted(), providers: considered))
            }
        }
        if request.isPrivate {
            names = names.filter { providers[$0]?.isLocal == true }
            rules.append("private: on-device providers only")
        }
        if budgetExhausted, request.forcedProvider == nil {
            names = names.filter { providers[$0]?.isFree == true }
            rules.append("monthly budget reached: free providers only")
        }
        guard !names.isEmpty else { throw .noProvider(task: request.task, rules: rules) }
        return RoutingDecision(providers: names, rules: rules)
    }

    /// The task whose chain serves `request`: its own, or the vision (images) or
    /// structured-output (JSON schema) chain when the task has no chain of its own.
    private func chainTask(for request: ChatRequest) -> TaskKind {
        guard policy.chains[request.task] == nil else { return request.task }
        if request.hasImages, policy.chains[.vision] != nil { return .vision }
        if request.responseSchema != nil, policy.chains[.structuredOutput] != nil { return .structuredOutput }
        return request.task
    }
}
