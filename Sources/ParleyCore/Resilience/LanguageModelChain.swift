import Logging

/// A language model made of an ordered list of providers that fails over between them.
///
/// - Only providers whose ``LanguageModelCapabilities`` cover what the request needs (images,
///   a JSON schema) are tried; when none can, the request fails at once with
///   ``UnsupportedCapabilityError``, naming what is missing and the providers considered.
/// - Providers whose circuit is open, or whose availability says they cannot serve (no key,
///   no model, server down), are skipped; each skip is logged once as a warning with its reason.
/// - During a request, a transport error, a server error, a rate limit, a timeout to the first
///   text, a stream that goes silent, or a stream cut short moves the request to the next
///   provider. If nothing was delivered yet, the request is replayed whole. If part of the reply
///   was delivered, the next provider gets it as context and continues; text that would repeat
///   what the listener already has is dropped. The failed stream is cancelled.
/// - Outcomes feed ``ProviderHealth``, so a provider that keeps failing rests, and is tried
///   again after its cool-down.
public struct LanguageModelChain<C: Clock>: LanguageModelProvider where C.Duration == Duration {
    /// How long to wait for a provider's output.
    public struct Timeouts: Sendable, Equatable {
        /// From the request to the first text.
        public var firstOutput: Duration
        /// Between two pieces of text.
        public var idle: Duration

        /// Creates timeouts.
        public init(firstOutput: Duration = .seconds(15), idle: Duration = .seconds(10)) {
            self.firstOutput = firstOutput
            self.idle = idle
        }
    }

    public let identity: ProviderIdentity
    /// The providers, most preferred first.
    public let providers: [any LanguageModelProvider]
    /// The health registry the chain reports to and consults.
    public let health: ProviderHealth<C>
    /// How long a provider may take to start and to go on answering before the next is tried.
    public let timeouts: Timeouts
    private let clock: C
    private let failover: Failover<C>

    /// Creates a chain.
    public init(
        providers: [any LanguageModelProvider], health: ProviderHealth<C>, clock: C,
        timeouts: Timeouts = Timeouts(), logger: Logger = Logger(label: "parley.chain.llm")
    ) {
        self.providers = providers
        self.health = health
        self.clock = clock
        self.timeouts = timeouts
        self.failover = Failover(capability: "LLM", health: health, logger: logger)
        self.identity = ProviderIdentity(
            name: "chain", model: providers.map(\.identity.description).joined(separator: " → "),
            isLocal: providers.allSatisfy(\.identity.isLocal))
    }

    /// What any of the providers can do: the chain serves a request if one of them can.
    public var capabilities: LanguageModelCapabilities { .union(of: providers.map(\.capabilities)) }

    public func availability() async -> Availability {
        await firstReady(providers)
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in try await drive(request, continuation) }
    }

    /// The providers, most preferred first: the one that serves names itself in the stream.
    public func members(for request: ChatRequest) -> [any LanguageModelProvider] { providers }

    /// This chain's health and first-output limit, and the chain of the members after the
    /// ones a caller tried itself.
    public func failover(for request: ChatRequest) -> LanguageModelFailover? {
        let (providers, health, clock, timeouts) = (providers, health, clock, timeouts)
        return LanguageModelFailover(health: health, firstOutput: timeouts.firstOutput) { count in
            LanguageModelChain(providers: Array(providers.dropFirst(count)), health: health, clock: clock, timeouts: timeouts)
        }
    }

    /// The first ready provider, as it would answer; the chain itself when none is ready.
    public func answerer() async -> any LanguageModelProvider {
        for candidate in providers where await candidate.availability().isReady { return await candidate.answerer() }
        return self
    }

    private func drive(_ request: ChatRequest, _ output: AsyncThrowingStream<ChatEvent, any Error>.Continuation) async throws {
        var delivered = ""
        var usage = Usage()
        var attempts: [ChainExhaustedError.Attempt] = []
        let needs = request.requirements
        var capable: [any LanguageModelProvider] = []
        for provider in providers {
            let missing = provider.capabilities.missing(needs)
            if missing.isEmpty {
                capable.append(provider)
            } else {
                let lacking = missing.map(\.description).joined(separator: " or ")
                attempts.append(.init(provider: provider.identity.description, reason: "cannot \(lacking)"))
                if missing.contains(.tools) {
                    let name = provider.identity.description
                    await failover.warnings.once("\(name) tools", "[LLM] \(name) cannot call tools; the request with tools skips it")
                }
            }
        }
        guard !capable.isEmpty || providers.isEmpty else {
            throw UnsupportedCapabilityError(missing: needs.sorted(), providers: providers.map(\.identity.description))
        }
        for (index, provider) in capable.enumerated() {
            try Task.checkCancellation()
            let next = capable.dropFirst(index + 1).first
            guard await failover.admits(provider, next: next, attempts: &attempts) else { continue }
            let attemptRequest = delivered.isEmpty ? request : Self.continuation(of: request, after: delivered)
            var text = ""
            do {
                let outcome = try await attempt(provider, attemptRequest, alreadyDelivered: delivered, text: &text, output)
                usage.add(outcome.usage)
                await failover.succeeded(provider)
                output.yield(.finished(outcome.finish, usage))
                return
            } catch {
                delivered += text
                let progress = delivered.isEmpty ? "" : " after \(delivered.count) characters; continuing"
                try await failover.failed(provider, next: next, error: error, detail: progress, attempts: &attempts)
            }
        }
        throw ChainExhaustedError(capability: "LLM", attempts: attempts)
    }

    private struct Outcome {
        var usage: Usage
        var finish: FinishReason
    }

    /// What the watchdog and the provider's stream report to the attempt.
    private enum Signal: Sendable {
        case event(ChatEvent)
        case failed(any Error)
        case ended
        case timedOut(ProviderTimeoutError)
    }

    /// Runs one provider; `text` collects what was delivered to the caller in this attempt.
    private func attempt(
        _ provider: any LanguageModelProvider, _ request: ChatRequest, alreadyDelivered: String,
        text: inout String, _ output: AsyncThrowingStream<ChatEvent, any Error>.Continuation
    ) async throws -> Outcome {
        let (signals, sink) = AsyncStream.makeStream(of: Signal.self)
        let producer = Task {
            do {
                for try await event in provider.complete(request) { sink.yield(.event(event)) }
                sink.yield(.ended)
            } catch {
                sink.yield(.failed(error))
            }
        }
        var watchdog = startWatchdog(.firstOutput, timeouts.firstOutput, sink)
        defer {
            producer.cancel()
            watchdog.cancel()
            sink.finish()
        }
        var guardAgainstRepeats = RepeatGuard(alreadyDelivered: alreadyDelivered)
        var usage = Usage()
        var announced = false
        // A tool call's pieces are held until the call is whole, so a provider that fails
        // mid-call leaves no half call behind: whole calls only, each exactly once.
        var heldPieces: [ToolCallDelta] = []
        var callsDelivered = 0
        func announce() {
            guard !announced else { return }
            announced = true
            output.yield(.provider(provider.identity))
        }
        for await signal in signals {
            switch signal {
            case .event(.text(let piece)):
                watchdog.cancel()
                watchdog = startWatchdog(.idle, timeouts.idle, sink)
                let fresh = guardAgainstRepeats.filter(piece)
                if !fresh.isEmpty {
                    announce()
                    text += fresh
                    output.yield(.text(fresh))
                }
            case .event(.toolCallDelta(let piece)):
                watchdog.cancel()
                watchdog = startWatchdog(.idle, timeouts.idle, sink)
                heldPieces.append(piece)
            case .event(.toolCall(let call)):
                watchdog.cancel()
                watchdog = startWatchdog(.idle, timeouts.idle, sink)
                announce()
                let index = callsDelivered
                for piece in heldPieces where piece.index == index { output.yield(.toolCallDelta(piece)) }
                heldPieces.removeAll { $0.index == index }
                output.yield(.toolCall(call))
                callsDelivered += 1
            case .event(.provider):
                break  // a nested chain's report; this chain reports the provider it called
            case .event(.finished(let reason, let reported)):
                usage = reported
                return Outcome(usage: usage, finish: reason)
            case .ended:
                return Outcome(usage: usage, finish: callsDelivered > 0 ? .toolCalls : .stop)
            case .failed(let error):
                // Whole calls were delivered: the caller can run them; another provider would
                // call them again.
                if callsDelivered > 0 { return Outcome(usage: usage, finish: .toolCalls) }
                throw error
            case .timedOut(let timeout):
                if callsDelivered > 0 { return Outcome(usage: usage, finish: .toolCalls) }
                throw timeout
            }
        }
        throw CancellationError()  // the signal stream ends early only when this task is cancelled
    }

    private func startWatchdog(_ phase: ProviderTimeoutError.Phase, _ limit: Duration, _ sink: AsyncStream<Signal>.Continuation) -> Task<Void, Never> {
        Task {
            do {
                try await clock.sleep(for: limit)
                // Confirmed after a grace that starts once the limit is noticed: output that
                // came while the process was suspended is read first (see TimeoutGrace).
                try await clock.sleep(for: TimeoutGrace.after(limit))
                sink.yield(.timedOut(ProviderTimeoutError(phase: phase, limit: limit)))
            } catch {}
        }
    }

    /// The request a fallback provider gets to continue a partly delivered reply.
    static func continuation(of request: ChatRequest, after delivered: String) -> ChatRequest {
        var continued = request
        continued.messages.append(.assistant(delivered))
        continued.messages.append(.user("Continue your previous answer exactly where it stopped. Do not repeat any of it."))
        return continued
    }
}

/// Drops text a fallback provider repeats from the part of the reply already delivered: while
/// its output is a prefix of what was delivered, it is held; if it turns out to be a repeat, the
/// repeated part is dropped, otherwise everything held is released.
struct RepeatGuard: Sendable {
    private let delivered: String
    private var held = ""
    private var checking: Bool

    init(alreadyDelivered: String) {
        delivered = alreadyDelivered.trimmingWhitespace()
        checking = !delivered.isEmpty
    }

    mutating func filter(_ piece: String) -> String {
        guard checking else { return piece }
        held += piece
        let candidate = held.trimmingWhitespace()
        if delivered.hasPrefix(candidate) { return "" }  // still possibly a repeat: hold
        checking = false
        defer { held = "" }
        if candidate.hasPrefix(delivered) {
            // Repeated everything, then went on: keep only the new part.
            let leading = held.prefix { $0.isWhitespace }.count
            return String(held.dropFirst(leading + delivered.count))
        }
        return held
    }
}

extension Usage {
    /// Adds another request's figures.
    public mutating func add(_ other: Usage) {
        inputTokens += other.inputTokens
        cachedInputTokens += other.cachedInputTokens
        outputTokens += other.outputTokens
    }
}

/// Logs one warning per key (a provider) per chain, so a skipped provider is announced once.
actor WarningLog {
    private let logger: Logger
    private var seen: Set<String> = []

    init(logger: Logger) {
        self.logger = logger
    }

    func once(_ key: String, _ message: String) {
        guard seen.insert(key).inserted else { return }
        logger.warning("\(message)")
    }
}
