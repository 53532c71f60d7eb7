/// Runs a text reply with tools to its end: when the model calls tools the toolbox has, they
/// run (concurrently, each within its timeout), their results go back to the model, and it
/// answers, for at most ``maxRounds`` rounds (the last may not call tools). A call to a tool
/// the toolbox does not have (one the caller declared in the request) ends the loop with the
/// reply's calls, for the caller to run.
public struct ToolLoop: Sendable {
    /// The model.
    public let llm: any LanguageModelProvider
    /// The tools the loop runs.
    public let toolbox: ToolBox
    /// The most rounds of calls.
    public var maxRounds: Int

    /// What a loop produced.
    public struct Outcome: Sendable, Equatable {
        /// The last reply: text, or the calls left for the caller.
        public var reply: ChatReply
        /// The exchange before it: each round's assistant calls and the tools' results.
        public var exchange: [ChatMessage]
        /// The results of the calls that ran, in order.
        public var results: [ToolResult]
        /// The usage of every round together.
        public var usage: Usage
    }

    /// Creates a loop.
    public init(llm: any LanguageModelProvider, toolbox: ToolBox, maxRounds: Int = 3) {
        self.llm = llm
        self.toolbox = toolbox
        self.maxRounds = max(1, maxRounds)
    }

    /// Runs `request` (the toolbox's tools added to its own) and passes every event of every
    /// round to `onEvent` as it comes.
    public func run<C: Clock>(
        _ request: ChatRequest, clock: C,
        onEvent: @Sendable (ChatEvent) async -> Void = { _ in }
    ) async throws -> Outcome where C.Duration == Duration {
        var current = request
        current.tools = ToolBox.merged(request.tools, toolbox.definitions)
        let cued = toolbox.cuedChoice(for: current)
        if let cued { current.toolChoice = cued }
        var exchange: [ChatMessage] = []
        var results: [ToolResult] = []
        var usage = Usage()
        // A call the words plainly want, with its arguments, is made first; the model answers.
        if let call = toolbox.cuedCall(for: current) {
            let ran = await toolbox.run([call], clock: clock)
            let messages = [ChatMessage.assistant("", toolCalls: [call])] + ran.map(\.message)
            exchange += messages
            results += ran
            current.messages += messages
            current.toolChoice = .none
        }
        for round in 1...maxRounds {
            var reply = ChatReply()
            for try await event in llm.complete(current) {
                await onEvent(event)
                switch event {
                case .text(let piece): reply.text += piece
                case .toolCall(let call): reply.toolCalls.append(call)
                case .finished(let reason, let reported):
                    reply.finish = reason
                    reply.usage = reported
                case .provider(let identity): reply.provider = identity
                case .toolCallDelta: break
                }
            }
            usage.add(reply.usage)
            let ours = reply.toolCalls.allSatisfy { toolbox.tool(named: $0.name) != nil }
            guard !reply.toolCalls.isEmpty, ours, round < maxRounds else {
                return Outcome(reply: reply, exchange: exchange, results: results, usage: usage)
            }
            try Task.checkCancellation()
            let ran = await toolbox.run(reply.toolCalls, clock: clock)
            let messages = [reply.message] + ran.map(\.message)
            exchange += messages
            results += ran
            current.messages += messages
            current.toolChoice =
                round == 1 && cued != nil
                ? .none
                : Self.nextChoice(
                    current.toolChoice, round: round, of: maxRounds, calls: reply.toolCalls,
                    before: results.dropLast(ran.count).map(\.call))
        }
        return Outcome(reply: ChatReply(finish: .stop, usage: usage), exchange: exchange, results: results, usage: usage)
    }

    /// The tool choice for the round after `round` (of `rounds`), whose `calls` followed
    /// `before`: the last round answers in words, and so does the round after a call the
    /// model made already (a small model may call the same tool again and again); a forced
    /// call is made once, then the model answers.
    public static func nextChoice(_ choice: ToolChoice, round: Int, of rounds: Int, calls: [ToolCall], before: [ToolCall]) -> ToolChoice {
        let repeated = calls.contains { call in
            before.contains { $0.name == call.name && ($0.parsedArguments ?? .string($0.arguments)) == (call.parsedArguments ?? .string(call.arguments)) }
        }
        if round + 1 >= rounds || repeated { return .none }
        return choice.forcesCall ? .auto : choice
    }
}
