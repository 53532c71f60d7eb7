/// A language model that runs a toolbox's tools itself: its stream is a ``ToolLoop``'s, seen
/// from outside as one reply. The text of every round streams as it comes; calls to the
/// toolbox's tools run in between and never reach the caller; calls to tools only the request
/// declared end the reply (finish ``FinishReason/toolCalls``) for the caller to run, as any
/// model's would. One `.finished` ends the stream with the usage of all rounds.
///
/// It is how a face that hands a plain model to its client (the server's
/// `/v1/chat/completions` with the built-in tools) lets the model look things up first.
public struct ToolRunningModel<C: Clock>: LanguageModelProvider where C.Duration == Duration {
    /// The loop: the model, the toolbox and the most rounds.
    public let loop: ToolLoop
    /// The clock the tools' timeouts run on.
    public let clock: C
    /// Told of each tool that ran, when it has run (to log it, or to show it).
    public let ran: @Sendable (ToolResult) -> Void

    /// Wraps `loop`; tools time out on `clock`.
    public init(loop: ToolLoop, clock: C, ran: @escaping @Sendable (ToolResult) -> Void = { _ in }) {
        self.loop = loop
        self.clock = clock
        self.ran = ran
    }

    public var identity: ProviderIdentity { loop.llm.identity }
    public var capabilities: LanguageModelCapabilities { loop.llm.capabilities }
    public func availability() async -> Availability { await loop.llm.availability() }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let loop = self.loop, clock = self.clock, ran = self.ran
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let outcome = try await loop.run(request, clock: clock) { event in
                        switch event {
                        case .text, .provider: continuation.yield(event)
                        // Calls are known whole only at a round's end, when it is clear whose they are.
                        case .toolCallDelta, .toolCall, .finished: break
                        }
                    }
                    outcome.results.forEach(ran)
                    // The caller runs only its own tools (a round that called both kinds ends with
                    // the caller's; the model may call the others again once it has their results).
                    let theirs = outcome.reply.toolCalls.filter { loop.toolbox.tool(named: $0.name) == nil }
                    for call in theirs { continuation.yield(.toolCall(call)) }
                    let finish = theirs.isEmpty ? (outcome.reply.finish == .toolCalls ? .stop : outcome.reply.finish) : .toolCalls
                    continuation.yield(.finished(finish, outcome.usage))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
