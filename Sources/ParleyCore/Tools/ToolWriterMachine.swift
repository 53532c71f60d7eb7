/// How an on-device model writes a reply that may call tools, as a pure value: the engine
/// feeds it what it measured or sampled (a probability, a token's bytes, the end) and carries
/// out the actions each event returns, in order. It evaluates nothing and samples nothing; it
/// decides what the reply is (text, calls, or text and then calls) and what the engine's
/// memory and sampler must do next.
///
/// A reply goes through these states:
/// - **deciding** (``State/decidingOpening``, ``State/decidingNaming(opening:)``), where
///   ``CallDecision`` applies: whether it opens as a call, from what the model predicts at its
///   first position;
/// - **text** (``State/text(started:startPosition:)``): free text, its start watched for a
///   call written without the marker (bare JSON, a code block, a tool's name called like a
///   function), and the rest for the call marker;
/// - **call** (``State/call(index:name:arguments:)``): a call written under the call grammar,
///   its name and arguments streamed as they grow;
/// - **between calls** (``State/decidingNextCall``, ``State/afterCall``): another call, or
///   the end, decided as the first was (a reply the decision opened as a call) or by what the
///   model writes next;
/// - **done** (``State/done(_:)``) or **failed** (``State/failed(_:)``).
///
/// An event that makes no sense in the state (a token while deciding, anything once done) is
/// refused with a ``Rejection`` and changes nothing.
public struct ToolWriterMachine: Sendable {
    /// How the reply starts.
    public enum Start: Sendable, Equatable {
        /// The model is free to call or answer: ``CallDecision`` decides first.
        case decide(CallDecision)
        /// Free text (the model may still open a call itself).
        case text
        /// A call the model must make, already opened by the prompt.
        case call
    }

    /// What the reply is doing now, with what it carries.
    public enum State: Sendable, Equatable {
        /// Waiting for the probability that the reply's first token opens a call.
        case decidingOpening
        /// Waiting for the probability that a call opened at the reply's start names a declared
        /// tool (the opening's was high enough to ask).
        case decidingNaming(opening: Double)
        /// Free text. Until `started`, the reply's start is held while it may still be a call
        /// written without the marker; `startPosition` is where in memory that start begins.
        case text(started: Bool, startPosition: Int?)
        /// A call being written under the call grammar: its index among the reply's calls, and
        /// its name and arguments' text as far as they are written.
        case call(index: Int, name: String?, arguments: String)
        /// A call was closed in a reply the decision opened as a call: waiting for the
        /// probability that the model opens another on the next line.
        case decidingNextCall
        /// A call was closed: the model opens another (after whitespace) or the reply ends.
        case afterCall
        /// The reply ended.
        case done(FinishReason)
        /// The model wrote a call that cannot be read.
        case failed(ProviderError)
    }

    /// What happened: what the engine measured or sampled.
    public enum Event: Sendable, Equatable {
        /// The probability the model gives to opening a call (in any shape) at the reply's
        /// first position (``State/decidingOpening``).
        case callOpening(Double)
        /// The probability that a call opened there names a declared tool (after
        /// ``Action/measureNaming``).
        case callNaming(Double)
        /// The probability of opening another call on the line after a call (after
        /// ``Action/measureNextCall``).
        case nextCallOpening(Double)
        /// The model sampled a token: its bytes, and where it is (or goes) in memory.
        case token([UInt8], position: Int)
        /// The model ended its reply (its end-of-generation token).
        case endOfGeneration
        /// No more tokens: the token limit or the context is reached.
        case limit
        /// The caller cancelled the reply.
        case cancelled
    }

    /// What the engine must do, in the order given.
    public enum Action: Sendable, Equatable {
        /// Stream a piece of the reply's text.
        case text(String)
        /// Stream a piece of a call.
        case callDelta(ToolCallDelta)
        /// Stream a whole call.
        case call(ToolCall)
        /// Evaluate a call's opening and the start of its JSON up to the name
        /// (`<tool_call>\n{"name": "`) after the prompt, then send ``Event/callNaming(_:)``
        /// with the probability of a declared tool's name there.
        case measureNaming
        /// The decision is made (for the record and the log), its memory work done.
        case decided(CallDecision.Evidence, CallDecision.Verdict)
        /// Keep in memory the prompt and a call's opening line only (what the naming measure
        /// evaluated beyond it is taken back); the call is written from there.
        case keepCallOpening
        /// Keep in memory the prompt only (the naming measure's tokens are taken back).
        case keepPrompt
        /// Take back memory from `position` on, with anything sampled ahead, and evaluate a
        /// call's opening there: what the model wrote was a call without the marker.
        case reopenAsCall(from: Int)
        /// A call begins: drop the tokens sampled ahead, and sample under a fresh call grammar.
        case beginCall
        /// Evaluate the close of the call just written (`\n</tool_call>`).
        case closeCall
        /// Evaluate a new line and send ``Event/nextCallOpening(_:)`` with the probability of
        /// opening a call there.
        case measureNextCall
        /// Evaluate another call's opening line (`<tool_call>\n`).
        case openNextCall
        /// The reply ends so.
        case finish(FinishReason)
        /// The reply fails so.
        case fail(ProviderError)
    }

    /// Which sampler the next token is drawn with.
    public enum Sampling: Sendable, Equatable {
        /// Free text.
        case free
        /// Free text whose first token may not open a call (a reply decided to be an answer).
        case freeWithoutCallOpening
        /// The call grammar.
        case call
    }

    /// Why an event was refused.
    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        /// The state the machine was in.
        public var state: State
        /// A sentence saying why.
        public var reason: String

        public var description: String { "\(reason) (while \(state))" }
    }

    /// The state the reply is in.
    public private(set) var state: State
    /// Calls made so far.
    public private(set) var calls = 0
    /// The tokens fed so far.
    public private(set) var tokens = 0

    private let toolNames: [String]
    private let single: Bool
    /// The decision for another call after one, in a reply the decision opened as a call.
    private var nextCalls: CallDecision?
    private let decision: CallDecision?
    /// Whether the reply's first token may not open a call.
    private var answerDecided = false
    private var decoder = UTF8StreamDecoder()
    private var stops: StopSequenceFilter
    private var trigger = ToolCallTrigger()
    private var opening: CallOpening
    private var streamer = ToolCallStreamer(index: 0)

    /// A reply that starts as `start`, may call the tools named `toolNames`, ends at the first
    /// of `stops` in its text, and makes one call at most when `single`.
    public init(start: Start, toolNames: [String], stops: [String] = [], single: Bool) {
        self.toolNames = toolNames
        self.single = single
        self.stops = StopSequenceFilter(stops: stops)
        self.opening = CallOpening(toolNames: toolNames)
        switch start {
        case .decide(let decision):
            self.decision = decision
            state = .decidingOpening
        case .text:
            self.decision = nil
            state = .text(started: false, startPosition: nil)
        case .call:
            self.decision = nil
            state = .call(index: 0, name: nil, arguments: "")
        }
    }

    /// Which sampler the next token is drawn with.
    public var sampling: Sampling {
        switch state {
        case .call: .call
        case .text where answerDecided && tokens == 0: .freeWithoutCallOpening
        default: .free
        }
    }

    /// Whether the next token is free text past the reply's start, where the engine may guess
    /// tokens ahead (a call's tokens are the grammar's, and the start may be taken back).
    public var writesFreeText: Bool {
        if case .text(started: true, _) = state { return true }
        return false
    }

    /// Why the reply ended, once it has.
    public var finishReason: FinishReason? {
        if case .done(let reason) = state { return reason }
        return nil
    }

    /// Whether the reply has ended (done or failed).
    public var isOver: Bool {
        switch state {
        case .done, .failed: true
        default: false
        }
    }

    /// Applies `event`: the actions to carry out in order, or why it was refused.
    public mutating func handle(_ event: Event) -> Result<[Action], Rejection> {
        switch (event, state) {
        case (_, .done), (_, .failed):
            return reject("The reply is over")
        case (.cancelled, _):
            state = .done(.cancelled)
            return .success([.finish(.cancelled)])

        case (.callOpening(let probability), .decidingOpening):
            guard let decision else { return reject("No decision is being made") }
            let evidence = CallDecision.Evidence(opening: probability, naming: 0)
            // Only a reply likely enough to open a call can be one: then, how likely the call
            // is to name a declared tool.
            guard evidence.opening < decision.threshold else {
                state = .decidingNaming(opening: evidence.opening)
                return .success([.measureNaming])
            }
            return .success(decide(on: evidence, by: decision, measured: false))
        case (.callNaming(let probability), .decidingNaming(let opening)):
            guard let decision else { return reject("No decision is being made") }
            return .success(decide(on: CallDecision.Evidence(opening: opening, naming: probability), by: decision, measured: true))
        case (.nextCallOpening(let probability), .decidingNextCall):
            guard let nextCalls, nextCalls.callsAgain(opening: probability) else { return .success(finish(.toolCalls)) }
            return .success([.openNextCall] + beginCall(with: ""))
        case (.callOpening, _), (.callNaming, _), (.nextCallOpening, _):
            return reject("No decision is waiting for this probability")

        case (.token, .decidingOpening), (.token, .decidingNaming), (.token, .decidingNextCall),
            (.endOfGeneration, .decidingOpening), (.endOfGeneration, .decidingNaming), (.endOfGeneration, .decidingNextCall),
            (.limit, .decidingOpening), (.limit, .decidingNaming), (.limit, .decidingNextCall):
            return reject("A decision is waiting for its probability; nothing is sampled before it")

        case (.token(let bytes, let position), _):
            tokens += 1
            return .success(take(decoder.push(bytes), at: position))
        case (.endOfGeneration, _):
            return .success(finish(.stop))
        case (.limit, _):
            return .success(finish(.length))
        }
    }

    private func reject(_ reason: String) -> Result<[Action], Rejection> {
        .failure(Rejection(state: state, reason: reason))
    }

    /// The verdict on `evidence`, and where the reply goes from it.
    private mutating func decide(on evidence: CallDecision.Evidence, by decision: CallDecision, measured: Bool) -> [Action] {
        let verdict = decision.verdict(on: evidence)
        switch verdict {
        case .call:
            nextCalls = decision
            state = .call(index: 0, name: nil, arguments: "")
            return [.keepCallOpening, .beginCall, .decided(evidence, verdict)]
        case .answer:
            answerDecided = true
            state = .text(started: false, startPosition: nil)
            return (measured ? [.keepPrompt] : []) + [.decided(evidence, verdict)]
        }
    }

    /// What a piece of the reply (whole characters; empty while a character is split) does.
    private mutating func take(_ piece: String, at position: Int) -> [Action] {
        switch state {
        case .text(started: false, let startPosition):
            // A model that writes a call without the marker, as bare JSON or in a code block,
            // means a call: what it wrote is taken back and the call opened as the format has
            // it, so the grammar holds from its first character.
            let start = startPosition ?? position
            switch opening.push(piece) {
            case .undecided:
                state = .text(started: false, startPosition: start)
                return []
            case .call:
                return reopenAsCall(from: start)
            case .text(let text):
                state = .text(started: true, startPosition: nil)
                return write(text)
            }
        case .text(started: true, _):
            return write(piece)
        case .call:
            return takeCallText(piece)
        case .afterCall:
            // The next of several calls, written without the marker.
            if piece.drop(while: \.isWhitespace).first == "{" {
                _ = trigger.flush()
                return reopenAsCall(from: position)
            }
            // After its calls the model opens another or ends; anything else ends the reply.
            let (released, triggered, after) = trigger.push(piece)
            if triggered, released.allSatisfy(\.isWhitespace) { return beginCall(with: after) }
            return released.allSatisfy(\.isWhitespace) ? [] : finish(.toolCalls)
        case .decidingOpening, .decidingNaming, .decidingNextCall, .done, .failed:
            return []  // refused in `handle`
        }
    }

    /// Free text: out as it comes, but for what may open a call or a stop sequence.
    private mutating func write(_ text: String) -> [Action] {
        let (released, triggered, after) = trigger.push(text)
        let (out, stopped) = stops.push(released)
        var actions: [Action] = out.isEmpty ? [] : [.text(out)]
        if stopped { return actions + finish(.stop, stoppedInText: true) }
        if triggered { actions += beginCall(with: after) }
        return actions
    }

    private mutating func reopenAsCall(from position: Int) -> [Action] {
        [.reopenAsCall(from: position)] + beginCall(with: "")
    }

    private mutating func beginCall(with text: String) -> [Action] {
        state = .call(index: calls, name: nil, arguments: "")
        streamer = ToolCallStreamer(index: calls)
        return [.beginCall] + takeCallText(text)
    }

    /// Adds text to the call, streaming its pieces; a whole call is closed, and the reply goes
    /// on to the next or ends.
    private mutating func takeCallText(_ text: String) -> [Action] {
        guard case .call(let index, var name, var arguments) = state else { return [] }
        let pieces: [ToolCallDelta], whole: ToolCall?
        do {
            (pieces, whole) = try streamer.feed(text)
        } catch {
            state = .failed(error)
            return [.fail(error)]
        }
        for piece in pieces {
            if let named = piece.name { name = named }
            arguments += piece.arguments
        }
        state = .call(index: index, name: name, arguments: arguments)
        var actions = pieces.map(Action.callDelta)
        guard let whole else { return actions }
        calls += 1
        // The call is whole: close it as the template does, then let the model go on.
        actions += [.call(whole), .closeCall]
        if single { return actions + finish(.toolCalls) }
        if nextCalls != nil {
            // Another call, or the end: decided as the first was, on the line after it.
            state = .decidingNextCall
            return actions + [.measureNextCall]
        }
        state = .afterCall
        trigger = ToolCallTrigger()
        return actions
    }

    /// Ends the reply: a reply that made calls ends with them (unless cancelled); text held
    /// back at its end goes out first (not past a stop sequence, which ends the text).
    private mutating func finish(_ reason: FinishReason, stoppedInText: Bool = false) -> [Action] {
        var actions: [Action] = []
        if case .text = state, !stoppedInText {
            let tail = stops.flush(opening.flush() + trigger.push(decoder.flush()).text + trigger.flush())
            if !tail.isEmpty { actions.append(.text(tail)) }
        }
        let finish = calls > 0 && reason != .cancelled ? FinishReason.toolCalls : reason
        state = .done(finish)
        return actions + [.finish(finish)]
    }
}
