import Logging

/// The bookkeeping every fallback chain shares: which providers may be tried, warnings that
/// say why one is skipped (once each), health updates and the record of attempts that makes
/// the final error actionable.
struct Failover<C: Clock>: Sendable where C.Duration == Duration {
    /// The capability in log lines and errors, e.g. "LLM", "STT".
    let capability: String
    let health: ProviderHealth<C>
    let logger: Logger
    let warnings: WarningLog

    init(capability: String, health: ProviderHealth<C>, logger: Logger) {
        self.capability = capability
        self.health = health
        self.logger = logger
        self.warnings = WarningLog(logger: logger)
    }

    /// Whether `provider` may be tried now; if not, records why and warns once.
    func admits(_ provider: any Provider, next: (any Provider)?, attempts: inout [ChainExhaustedError.Attempt]) async -> Bool {
        let name = provider.identity.description
        let allowed = health.isHealthy(name) ? true : await health.allowsRequest(to: name)
        guard allowed else {
            attempts.append(.init(provider: name, reason: "resting after recent failures"))
            await warnings.once(name, "[\(capability)] \(name) is resting after recent failures, \(fallingBack(to: next))")
            return false
        }
        let availability = await provider.availability()
        guard availability.isReady else {
            // Rest it, so later requests do not wait for the same check: a dead server for a
            // cool-down (probes bring it back), a missing key or model until reconfigured.
            // A machine short of memory or too hot is checked again sooner.
            switch availability {
            case .serverUnreachable:
                await health.recordFailure(name, kind: .transient(retryAfter: .seconds(30)), reason: availability.description)
            case .insufficientResources:
                await health.recordFailure(name, kind: .transient(retryAfter: .seconds(10)), reason: availability.description)
            default:
                await health.recordFailure(name, kind: .configuration, reason: availability.description)
            }
            attempts.append(.init(provider: name, reason: availability.description, remedy: availability.remedy))
            await warnings.once(name, "[\(capability)] \(name): \(availability), \(fallingBack(to: next))")
            return false
        }
        return true
    }

    /// Records a failed attempt. Rethrows errors that another provider would not fix.
    func failed(
        _ provider: any Provider, next: (any Provider)?, error: any Error, detail: String = "",
        attempts: inout [ChainExhaustedError.Attempt]
    ) async throws {
        if Task.isCancelled { throw CancellationError() }
        let kind = failureKind(of: error)
        if kind == .invalidRequest { throw error }
        let name = provider.identity.description
        attempts.append(.init(provider: name, reason: "\(error)"))
        // A provider that cannot do what this request needs may serve the next one: no rest.
        if error is UnsupportedVoiceError {
            // Every sentence in that voice meets it again: said once.
            await warnings.once("\(name)|\(error)", "[\(capability)] \(error), \(fallingBack(to: next))")
            return
        }
        if !(error is UnsupportedCapabilityError) {
            await health.recordFailure(name, kind: kind, reason: "\(error)")
        }
        logger.warning("[\(capability)] \(name) failed: \(error)\(detail), \(fallingBack(to: next))")
    }

    /// Records a successful attempt.
    func succeeded(_ provider: any Provider) async {
        let name = provider.identity.description
        // Nothing to record for a provider already healthy.
        if !health.isHealthy(name) { await health.recordSuccess(name) }
    }

    /// Runs `operation` on each admitted provider in turn until one succeeds.
    func run<P: Sendable, T>(_ providers: [P], _ operation: (P) async throws -> T) async throws -> T {
        var attempts: [ChainExhaustedError.Attempt] = []
        for (index, element) in providers.enumerated() {
            try Task.checkCancellation()
            guard let provider = element as? any Provider else { continue }
            let next = providers.dropFirst(index + 1).first as? any Provider
            guard await admits(provider, next: next, attempts: &attempts) else { continue }
            do {
                let result = try await operation(element)
                await succeeded(provider)
                return result
            } catch {
                try await failed(provider, next: next, error: error, attempts: &attempts)
            }
        }
        throw ChainExhaustedError(capability: capability, attempts: attempts)
    }

    func fallingBack(to next: (any Provider)?) -> String {
        next.map { "falling back to \($0.identity)" } ?? "and no fallback is left"
    }
}
