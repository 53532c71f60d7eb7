import Logging

/// An on-device model that a ``ResourcePolicy`` may take out of service: while the machine is
/// short of memory or too hot, its availability says so and a fallback chain moves on to the
/// next provider (a smaller local model, or the cloud); when the policy asks, the model is
/// unloaded to give the memory back. It serves again once resources recover.
public struct ResourceGuardedLanguageModel: LanguageModelProvider {
    /// The guarded model.
    public let base: any UnloadableLanguageModel
    /// The size of its weights in bytes.
    public let modelBytes: UInt64
    /// Where resources are read.
    public let monitor: any ResourceMonitor
    /// The rule applied.
    public let policy: ResourcePolicy
    private let logger: Logger

    /// Guards `base`, whose weights take `modelBytes`.
    public init(_ base: any UnloadableLanguageModel, modelBytes: UInt64, monitor: any ResourceMonitor,
                policy: ResourcePolicy = ResourcePolicy(), logger: Logger = Logger(label: "parley.resources")) {
        self.base = base
        self.modelBytes = modelBytes
        self.monitor = monitor
        self.policy = policy
        self.logger = logger
    }

    public var identity: ProviderIdentity { base.identity }
    /// The guarded model's capabilities.
    public var capabilities: LanguageModelCapabilities { base.capabilities }

    public func availability() async -> Availability {
        let snapshot = await monitor.snapshot()
        let loaded = await base.isLoaded
        switch policy.assess(snapshot, modelBytes: modelBytes, isLoaded: loaded) {
        case .run:
            return await base.availability()
        case .avoid(let reason, let unload):
            if unload, loaded {
                logger.warning("[LLM] unloading \(base.identity.description): \(reason)")
                await base.unload()
            }
            return .insufficientResources(reason: reason)
        }
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        base.complete(request)
    }
}

/// A language model that holds its weights in memory and can give them back.
public protocol UnloadableLanguageModel: LanguageModelProvider {
    /// Whether the weights are in memory.
    var isLoaded: Bool { get async }
    /// Frees the weights; the next request loads them again.
    func unload() async
}
