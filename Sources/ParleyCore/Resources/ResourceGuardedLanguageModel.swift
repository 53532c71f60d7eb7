import Logging
import Synchronization

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
    /// How long the machine must have run cooler than the policy's thermal limit before a
    /// model taken out for heat serves again, so that it does not come and go at the edge.
    public let coolDown: Duration
    private let logger: Logger
    private let elapsed: @Sendable () -> Duration
    private let lastHot = HeatRecord()

    /// Guards `base`, whose weights take `modelBytes`; `clock` times the cool-down.
    public init(
        _ base: any UnloadableLanguageModel, modelBytes: UInt64, monitor: any ResourceMonitor,
        policy: ResourcePolicy = ResourcePolicy(), coolDown: Duration = .seconds(60),
        clock: some Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "parley.resources")
    ) {
        self.base = base
        self.modelBytes = modelBytes
        self.monitor = monitor
        self.policy = policy
        self.coolDown = coolDown
        self.logger = logger
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// When the machine was last seen too hot, as time since the guard was made.
    private final class HeatRecord: Sendable {
        let seen = Mutex<Duration?>(nil)
    }

    public var identity: ProviderIdentity { base.identity }
    /// The guarded model's capabilities.
    public var capabilities: LanguageModelCapabilities { base.capabilities }

    public func availability() async -> Availability {
        let snapshot = await monitor.snapshot()
        let now = elapsed()
        if let thermal = snapshot.thermalState, thermal >= policy.avoidAtThermalState {
            lastHot.seen.withLock { $0 = now }
        } else if let hot = lastHot.seen.withLock({ $0 }), now - hot < coolDown {
            return .insufficientResources(reason: "the device is cooling down after running hot")
        }
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

    public var runsOnDevice: Bool { base.runsOnDevice }

    /// The guarded model, standing aside only while the machine is short of memory or hot.
    public func answerer() async -> any LanguageModelProvider { await base.answerer() }
}

/// A language model that holds its weights in memory and can give them back.
public protocol UnloadableLanguageModel: LanguageModelProvider {
    /// Whether the weights are in memory.
    var isLoaded: Bool { get async }
    /// Frees the weights; the next request loads them again.
    func unload() async
}
