import Logging

/// The language model an app talks to: each request is routed (``Router``) to a chain of
/// configured providers (``LanguageModelChain``) that fails over between them, and what paid
/// providers used is charged to the ``SpendingTracker``, whose hard stop keeps requests on
/// free providers.
public struct RoutedLanguageModel<C: Clock>: LanguageModelProvider where C.Duration == Duration {
    public let identity = ProviderIdentity(name: "router", isLocal: false)
    /// Which providers each request may go to, in order.
    public let router: Router
    /// Every configured provider, by name (its identity's description).
    public let providers: [String: any LanguageModelProvider]
    /// The health registry the chains report to and consult.
    public let health: ProviderHealth<C>
    /// Where paid providers' usage is charged; `nil`: no budget.
    public let spending: SpendingTracker?
    private let clock: C
    private let timeouts: LanguageModelChain<C>.Timeouts
    private let logger: Logger

    /// Creates a routed model over `providers`; their traits come from their identities.
    public init(
        providers: [any LanguageModelProvider], policy: RoutingPolicy, health: ProviderHealth<C>, clock: C,
        spending: SpendingTracker? = nil, freeProviders: Set<String> = [],
        timeouts: LanguageModelChain<C>.Timeouts = .init(), logger: Logger = Logger(label: "parley.router")
    ) {
        var byName: [String: any LanguageModelProvider] = [:]
        var traits: [String: ProviderTraits] = [:]
        for provider in providers {
            let name = provider.identity.description
            byName[name] = provider
            // On-device and self-hosted providers are free unless the price table says
            // otherwise (a metered self-hosted gateway, say).
            let priced = spending?.prices.prices[name] != nil
            traits[name] = ProviderTraits(
                isLocal: provider.identity.isLocal, capabilities: provider.capabilities,
                isFree: (provider.identity.isLocal && !priced) || freeProviders.contains(name))
        }
        self.providers = byName
        self.router = Router(policy: policy, providers: traits)
        self.health = health
        self.clock = clock
        self.spending = spending
        self.timeouts = timeouts
        self.logger = logger
    }

    /// What any configured provider can do; each request goes only to providers that can
    /// serve it.
    public var capabilities: LanguageModelCapabilities { .union(of: providers.values.map(\.capabilities)) }

    public func availability() async -> Availability {
        await firstReady(Array(providers.values))
    }

    /// Where `request` would go now, and why.
    public func decision(for request: ChatRequest) async throws -> RoutingDecision {
        try router.route(request, budgetExhausted: await spending?.isExhausted ?? false)
    }

    /// Streams the reply from the providers ``decision(for:)`` picks. A request that no
    /// configured provider can serve fails with ``UnsupportedCapabilityError``.
    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            let decision: RoutingDecision
            do {
                decision = try await self.decision(for: request)
            } catch RoutingError.unsupported(let error) {
                throw error
            }
            logger.debug("[LLM] routed \(request.task.rawValue) request: \(decision)")
            let chosen = decision.providers.compactMap { name in
                providers[name].map { provider -> any LanguageModelProvider in
                    spending.map { MeteredLanguageModel(inner: provider, spending: $0) } ?? provider
                }
            }
            let chain = LanguageModelChain(providers: chosen, health: health, clock: clock, timeouts: timeouts, logger: logger)
            for try await event in chain.complete(request) { continuation.yield(event) }
        }
    }
}

/// Charges a provider's reported usage to a spending tracker as each reply finishes.
struct MeteredLanguageModel: LanguageModelProvider {
    let inner: any LanguageModelProvider
    let spending: SpendingTracker

    var identity: ProviderIdentity { inner.identity }
    var capabilities: LanguageModelCapabilities { inner.capabilities }
    func availability() async -> Availability { await inner.availability() }

    func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let name = inner.identity.description
        let spending = self.spending
        let upstream = inner.complete(request)
        return .producing { continuation in
            for try await event in upstream {
                if case .finished(_, let usage) = event { await spending.record(MeteredUsage(usage), on: name) }
                continuation.yield(event)
            }
        }
    }
}
