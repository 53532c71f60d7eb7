import Foundation
import Logging
import ParleyCore
import Synchronization

/// The on-device language model: llama.cpp running a GGUF model with its own chat template.
///
/// The model is loaded on first use and kept. Turns of one conversation reuse the context's
/// memory: only the part of the prompt that differs from the previous one is evaluated. Work
/// runs on the actor's own thread so long evaluations never block Swift's cooperative pool.
public actor LlamaLanguageModel: UnloadableLanguageModel {
    /// Settings of the engine.
    public struct Configuration: Sendable, Equatable {
        /// The GGUF file.
        public var modelPath: String
        /// The context window in tokens.
        public var contextLength: Int
        /// CPU threads for evaluation.
        public var threads: Int
        /// The system prompt a request without one gets: some models (Qwen2.5-Coder) answer in
        /// code blocks unless told they are speaking, and their templates otherwise add their own.
        public var defaultSystemPrompt: String?
        /// The most tokens one ``LlamaLanguageModel/prefill(_:)`` evaluates when memory holds
        /// another conversation it would undo (a server's other session, whose next request may
        /// undo it again); memory that holds nothing, or only the start of the prompt, is
        /// filled whatever the count.
        public var prefillLimit = 96
        /// The end-of-turn score (``LlamaLanguageModel/endOfTurnProbability(after:utterance:scoring:)``)
        /// at or above which this model's words count as a whole utterance, when it was
        /// measured for the model (ParleyModels' catalog has it); `nil`: the turn policy's.
        public var endOfTurnThreshold: Double?
        /// Where the evaluated start of a conversation (instructions, tools) is kept between
        /// runs, so that a new process's first turn reads it back instead of evaluating it again
        /// (a tool prompt is hundreds of tokens: seconds on two cores); `nil` keeps nothing.
        public var promptMemoryDirectory: URL?
        /// The most tokens guessed at a time from the words at hand (the question's, which
        /// answers echo) and checked in one batch with the token before them (see
        /// ``PromptLookup``); 0 guesses none. The reply is the same either way.
        public var lookupDrafts = 3
        /// Whether a reply free to call a tool (``CallDecision/applies(to:)``) opens as a call:
        /// the threshold for the probability the model gives to opening one, read at the
        /// reply's first position. ``CallDecision/calibratedThreshold`` was calibrated for the
        /// default model.
        public var callDecision = CallDecision()
        /// How many of a reply's first tokens give way to a voice before they are evaluated
        /// (see ``ComputeLane/giveWay(for:longest:)``): a voice that speaks the reply chunk by
        /// chunk starts on the first words, which these tokens complete. At most 3 ms a token
        /// when no voice is at work (none at all in a process that has never run one); 0
        /// never gives way.
        public var giveWayTokens = 8

        /// Creates a configuration.
        public init(
            modelPath: String, contextLength: Int = 2048, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
            defaultSystemPrompt: String? = nil, endOfTurnThreshold: Double? = nil
        ) {
            self.modelPath = modelPath
            self.contextLength = contextLength
            self.threads = max(1, threads)
            self.defaultSystemPrompt = defaultSystemPrompt
            self.endOfTurnThreshold = endOfTurnThreshold
        }
    }

    public nonisolated let identity: ProviderIdentity
    /// Text, JSON that follows a schema and tool calls (both grammar-constrained); no images.
    /// The context window is the configured one.
    public nonisolated let capabilities: LanguageModelCapabilities
    public nonisolated let configuration: Configuration
    private let executor = ThreadExecutor(name: "parley.llama")
    /// Requests asked for and not yet ended (waiting for the actor or running): a prefill
    /// stands aside for them, since each would undo the memory it fills.
    private let requestsUnderWay = Mutex(0)
    private let prefilled = Mutex(0)
    private let scored = Mutex(0)
    private let guessed = Mutex(GuessedTokens())
    private var guessing = GuessEconomy()

    /// Tokens guessed from the words at hand (``Configuration/lookupDrafts``) and how many of
    /// them the model confirmed, over every reply so far.
    public struct GuessedTokens: Sendable, Equatable {
        public var proposed = 0
        public var confirmed = 0
    }

    /// Tokens guessed ahead and confirmed so far (readable while a reply runs).
    public nonisolated var guessedTokens: GuessedTokens { guessed.withLock { $0 } }

    /// Prompt tokens evaluated ahead of requests by ``prefill(_:)`` so far (readable while one runs).
    public nonisolated var prefilledTokens: Int { prefilled.withLock { $0 } }

    /// Prompt tokens evaluated by end-of-turn scores
    /// (``endOfTurnProbability(after:utterance:scoring:tools:)``) so far: what memory did not
    /// hold, instructions included when they were neither in memory nor on disk.
    public nonisolated var scoredTokens: Int { scored.withLock { $0 } }
    private var session: LlamaSession?
    let logger = Logger(label: "parley.llama")

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider; nothing is loaded until the first request (or ``load()``).
    public init(configuration: Configuration) {
        self.configuration = configuration
        let name = URL(fileURLWithPath: configuration.modelPath).deletingPathExtension().lastPathComponent
        self.identity = ProviderIdentity(name: "llama.cpp", model: name, isLocal: true)
        self.capabilities = LanguageModelCapabilities(jsonSchema: true, tools: true, contextTokens: configuration.contextLength)
    }

    public nonisolated func availability() async -> Availability {
        guard LlamaEngine.isBuilt else { return .unsupported(reason: LlamaEngine.notBuiltReason) }
        return FileManager.default.fileExists(atPath: configuration.modelPath)
            ? .ready
            : .missingModel(path: configuration.modelPath, hint: "download a GGUF chat model there or pass its path in the configuration")
    }

    /// Loads the model now (otherwise it loads on the first request).
    public func load() throws(LlamaError) {
        _ = try loadedSession()
    }

    /// Whether the model is in memory.
    public var isLoaded: Bool { session != nil }

    /// How many proposed tokens the grammar rejected in the last constrained request (each
    /// cost a pass over the whole vocabulary).
    public private(set) var lastGrammarResamples = 0

    /// What the model predicted at the first position of the last reply whose call was decided
    /// (``Configuration/callDecision``), and the verdict; `nil` before any.
    public private(set) var lastCallDecision: (evidence: CallDecision.Evidence, verdict: CallDecision.Verdict)?

    /// How many times the model has been loaded into memory (once, unless it was unloaded).
    public private(set) var loads = 0

    /// Frees the model and its context (the next request loads them again). A request in
    /// progress finishes first: the actor runs one at a time.
    public func unload() {
        guard session != nil else { return }
        session = nil
        logger.debug("unloaded \(configuration.modelPath)")
    }

    private func loadedSession() throws(LlamaError) -> LlamaSession {
        if let session { return session }
        let loaded = try LlamaSession(
            modelPath: configuration.modelPath, contextLength: configuration.contextLength, threads: configuration.threads)
        logger.debug("loaded \(loaded.modelDescription) with a \(loaded.contextLength)-token context")
        session = loaded
        loads += 1
        return loaded
    }

    /// Streams the reply. With a response schema, a grammar made from it (``JSONGrammar``)
    /// constrains every token, so the reply is JSON of the schema's shape. A request with
    /// image parts fails with ``UnsupportedCapabilityError`` before the model is loaded.
    public nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            try self.checkCapabilities(for: request)
            self.requestsUnderWay.withLock { $0 += 1 }
            defer { self.requestsUnderWay.withLock { $0 -= 1 } }
            try await self.generate(request, into: continuation)
        }
    }

    /// Runs one completion. Synchronous inside: no suspension point, so requests never
    /// interleave on the shared context.
    private func generate(
        _ request: ChatRequest, into continuation: AsyncThrowingStream<ChatEvent, any Error>.Continuation
    ) throws {
        let grammar = try request.responseSchema.map { response throws(ProviderError) in
            do { return JSONGrammar(schema: try JSONSchema(json: response.schema)) } catch { throw .invalidInput("\(error)") }
        }
        let session = try loadedSession()
        // No more threads than the cores other processes leave free (see CoreShare).
        session.useThreads(CoreShare.shared.threads(upTo: configuration.threads))
        let sampling = request.sampling
        // A schema for the whole reply leaves no room for calls. The declared tools are in the
        // prompt whatever the choice, so that the rounds of one exchange share their prompt's
        // start (and memory); the choice says which may be called.
        let declared = grammar == nil ? request.tools : []
        let tools = request.offersTools ? declared.filter { tool in request.callableTools.contains { $0.name == tool.name } } : []
        var messages = request.messages
        let toolPrompt = !declared.isEmpty || messages.contains(where: \.isToolExchange)
        if toolPrompt {
            messages = ToolCallFormat.render(messages, tools: declared, defaultSystem: configuration.defaultSystemPrompt)
        } else if let system = configuration.defaultSystemPrompt, !messages.contains(where: { $0.role == .system }) {
            messages.insert(.system(system), at: 0)
        }
        // A call the model must make starts at once: the prompt opens it.
        let forced = !tools.isEmpty && request.toolChoice.forcesCall
        let prompt = try fittedPrompt(
            messages, session: session, reserve: sampling.maxTokens,
            suffix: forced ? ToolCallFormat.open + "\n" : "")
        // The instructions come back from disk when a run kept them, and are kept there when
        // this is the first evaluation of them (see ``bringInstructions(of:before:session:tools:batch:)``).
        let fromInstructions = try bringInstructions(of: request.messages, before: prompt, session: session, tools: declared)
        let reused = try ComputeLane.shared.run { try session.load(prompt: prompt) } - fromInstructions
        let guessedBefore = guessedTokens
        defer {
            let now = guessedTokens
            if now.proposed > guessedBefore.proposed {
                logger.debug(
                    "guessed \(now.proposed - guessedBefore.proposed) tokens ahead, \(now.confirmed - guessedBefore.confirmed) confirmed (\(guessing.summary))")
            }
        }
        let lookup = PromptLookup(length: configuration.lookupDrafts, messageStart: Self.lastMessageStart(of: prompt, session: session))
        if tools.isEmpty {
            let sampler = try session.makeSampler(sampling, grammar: grammar)
            // Where calls are shown but not allowed, the reply may not open like one.
            let opening = toolPrompt && grammar == nil ? try session.makeSampler(sampling, banning: session.callOpeningTokens) : nil
            let (finish, generated) = try writeText(
                session: session, sampler: sampler, firstSampler: opening, sampling: sampling,
                lookup: lookup, into: continuation)
            if grammar != nil { logger.debug("grammar rejected \(sampler.resamples) of \(generated) proposed tokens") }
            lastGrammarResamples = sampler.resamples
            continuation.yield(.finished(finish, Usage(inputTokens: prompt.count, cachedInputTokens: reused, outputTokens: generated)))
            return
        }
        let callGrammar = JSONGrammar(schema: ToolCallFormat.callSchema(tools), prefix: #"[ \n]?"#)
        let single = !request.parallelToolCalls || { if case .function = request.toolChoice { true } else { false } }()
        let start: ToolWriterMachine.Start = forced ? .call : CallDecision.applies(to: request) ? .decide(configuration.callDecision) : .text
        let writer = ToolWriterMachine(start: start, toolNames: tools.map(\.name), stops: sampling.stop, single: single)
        let (finish, generated) = try writeWithTools(
            writer, session: session, sampling: sampling, callGrammar: callGrammar, toolNames: tools.map(\.name), lookup: lookup,
            into: continuation)
        continuation.yield(.finished(finish, Usage(inputTokens: prompt.count, cachedInputTokens: reused, outputTokens: generated)))
    }

    /// Cuts memory to its first `count` tokens and evaluates the last of them again, so that
    /// the next token is sampled from that position.
    private func rewind(_ session: LlamaSession, to count: Int) throws {
        let kept = Array(session.cachedTokens.prefix(count))
        guard let last = kept.last else { return }
        _ = session.keepCommonPrefix(with: Array(kept.dropLast()))
        try ComputeLane.shared.run { try session.evaluate([last]) }
    }

    /// Samples free text until the end, the token limit or a stop sequence; returns why it
    /// ended and how many tokens were generated.
    private func writeText(
        session: LlamaSession, sampler: LlamaSampler, firstSampler: LlamaSampler? = nil, sampling: SamplingOptions,
        lookup: PromptLookup, into continuation: AsyncThrowingStream<ChatEvent, any Error>.Continuation
    ) throws -> (FinishReason, Int) {
        var decoder = UTF8StreamDecoder()
        var stops = StopSequenceFilter(stops: sampling.stop)
        var ahead = Lookahead()
        var generated = 0
        var finish = FinishReason.length
        while generated < sampling.maxTokens {
            if Task.isCancelled {
                finish = .cancelled
                break
            }
            guard session.cachedTokens.count < session.contextLength else { break }
            let (token, evaluated) = ahead.next() ?? (session.sample(with: generated == 0 ? firstSampler ?? sampler : sampler), false)
            if session.isEndOfGeneration(token) {
                finish = .stop
                break
            }
            generated += 1
            let (text, stopped) = stops.push(decoder.push(session.bytes(of: token)))
            if !text.isEmpty { continuation.yield(.text(text)) }
            if stopped {
                finish = .stop
                break
            }
            if !evaluated {
                giveWay(after: generated)
                try advance(past: token, session: session, sampler: sampler, lookup: lookup, ahead: &ahead)
            }
        }
        if finish != .cancelled {
            let tail = stops.flush(decoder.flush())
            if !tail.isEmpty { continuation.yield(.text(tail)) }
        }
        return (finish, generated)
    }

    /// Tokens already sampled ahead of the reply's text: guesses the model confirmed (in
    /// memory) and the token it sampled after them (not yet evaluated).
    struct Lookahead {
        var confirmed: [Int32] = []
        var following: Int32?

        var isEmpty: Bool { confirmed.isEmpty && following == nil }

        /// The next token, and whether it is in memory already.
        mutating func next() -> (Int32, Bool)? {
            if !confirmed.isEmpty { return (confirmed.removeFirst(), true) }
            defer { following = nil }
            return following.map { ($0, false) }
        }
    }

    /// Evaluates `token`, with the tokens guessed to follow it when there are any and guessing
    /// has paid on this machine (then `ahead` holds those the model confirmed, and its own
    /// next token).
    private func advance(
        past token: Int32, session: LlamaSession, sampler: LlamaSampler, lookup: PromptLookup,
        ahead: inout Lookahead
    ) throws {
        let room = session.contextLength - session.cachedTokens.count - 1
        var drafts =
            sampler.hasGrammar || room <= 0 || !guessing.pays()
            ? [] : lookup.drafts(after: token, in: session.cachedTokens, isControl: session.isControl)
        drafts = Array(drafts.prefix(max(0, room)))
        let clock = ContinuousClock()
        guard !drafts.isEmpty else {
            let took = try ComputeLane.shared.run { try clock.measure { try session.evaluate([token]) } }
            guessing.step(took.seconds)
            return
        }
        var samples: [Int32] = []
        let took = try ComputeLane.shared.run { try clock.measure { samples = try session.evaluate(token, drafts: drafts, sampler: sampler) } }
        guessing.batch(took.seconds, confirmed: samples.count - 1)
        guessed.withLock {
            $0.proposed += drafts.count; $0.confirmed += samples.count - 1
        }
        ahead.confirmed = Array(samples.dropLast())
        ahead.following = samples.last
    }

    /// Before the reply's `generated`-th token is evaluated, while it is among the first
    /// ``Configuration/giveWayTokens``: leaves the engines' lane to a voice that the text so far
    /// may have set speaking (``ComputeLane/giveWay(for:longest:)``), so that a reply's first
    /// audio does not wait for the token after the words it speaks.
    private func giveWay(after generated: Int) {
        guard generated <= configuration.giveWayTokens else { return }
        ComputeLane.shared.giveWay(for: Self.giveWayPause, longest: Self.giveWayLongest)
    }

    /// How long a step gives way when no voice's work is announced: time for the text to reach
    /// a voice through the reply's streams, which announces its sentence on arrival (within
    /// this in 7 of 8 first chunks measured on two idle cores; see Benchmarks/README.md).
    static let giveWayPause = Duration.milliseconds(3)

    /// The longest a step gives way to announced work (a voice making a sentence's phonemes).
    static let giveWayLongest = Duration.milliseconds(25)

    /// Where the prompt's last message begins: after the third control token from its end
    /// (ChatML's `<|im_start|>` of the user's message, before its `<|im_end|>` and the
    /// assistant's `<|im_start|>`); 0 when there are fewer.
    static func lastMessageStart(of prompt: [Int32], session: LlamaSession) -> Int {
        var seen = 0
        for index in prompt.indices.reversed() where session.isControl(prompt[index]) {
            seen += 1
            if seen == 3 { return index + 1 }
        }
        return 0
    }

    /// Samples a reply that may call tools, as `writer` (``ToolWriterMachine``) decides: this
    /// loop measures, samples and evaluates; the machine says what each result means and what
    /// memory and the sampler do next. Where the model is free to call (``CallDecision``), the
    /// decision comes first, from how likely it is to open a call at the reply's first position
    /// in any shape it writes one (the marker, a brace, a fence, a tool's name) and, had it
    /// opened one, to name a declared tool. Text streams freely until the model opens a call;
    /// from there the call grammar admits only `{"name": <a tool>, "arguments": <its
    /// parameters>}`, so every call is well-formed and its arguments follow the tool's schema.
    /// After a call, the close is written for the model, which then opens another call
    /// (parallel calls) or ends; in a reply the decision opened as a call, another is opened
    /// when the model's probability of opening one on the next line reaches the decision's
    /// threshold, else the reply ends. A call's pieces stream as it is written; one cut short
    /// by the token limit never becomes a whole call (the reply ends with `.length`).
    private func writeWithTools(
        _ writer: ToolWriterMachine, session: LlamaSession, sampling: SamplingOptions, callGrammar: JSONGrammar, toolNames: [String],
        lookup: PromptLookup, into continuation: AsyncThrowingStream<ChatEvent, any Error>.Continuation
    ) throws -> (FinishReason, Int) {
        var machine = writer
        let freeSampler = try session.makeSampler(sampling)
        // The grammar of the call being written (a new one per call), and the sampler of the
        // first token of a reply decided to be an answer (it may not open like a call).
        var callSampler: LlamaSampler?
        var answerSampler: LlamaSampler?
        let open = try session.tokenize(ToolCallFormat.open + "\n", addingStart: false)
        let promptEnd = session.cachedTokens.count
        let clock = ContinuousClock()
        let started = clock.now
        var names: Set<Int32> = []
        var opening: Set<Int32> = []
        var generated = 0
        // Tokens sampled ahead while text is written (guesses the model confirmed, and its
        // next token), dropped with their memory when a call opens: a call's tokens are the
        // grammar's to sample.
        var ahead = Lookahead()

        /// Carries out one of the machine's actions; returns the event a measure leads to.
        func perform(_ action: ToolWriterMachine.Action) throws -> ToolWriterMachine.Event? {
            switch action {
            case .text(let text):
                continuation.yield(.text(text))
            case .callDelta(let piece):
                continuation.yield(.toolCallDelta(piece))
            case .call(let call):
                continuation.yield(.toolCall(call))
            case .measureNaming:
                // Had the reply opened a call here, how likely it is to name a declared tool
                // (a few tokens, taken back after).
                let head = try session.tokenize("{\"name\": \"", addingStart: false)
                try ComputeLane.shared.run { try session.evaluate(open + head) }
                return .callNaming(session.probability(ofAnyOf: names))
            case .keepCallOpening:
                try rewind(session, to: promptEnd + open.count)
            case .keepPrompt:
                if session.cachedTokens.count > promptEnd { try rewind(session, to: promptEnd) }
            case .decided(let evidence, let verdict):
                lastCallDecision = (evidence, verdict)
                let decision = configuration.callDecision
                let took = (clock.now - started).seconds * 1000
                logger.debug(
                    "call decision: \(verdict) on p(call) \(evidence.score) against \(decision.threshold) (opening \(evidence.opening), naming \(evidence.naming)) in \(Int(took)) ms"
                )
            case .reopenAsCall(let position):
                ahead = Lookahead()  // memory is cut at `position`, before anything sampled ahead
                _ = session.keepCommonPrefix(with: Array(session.cachedTokens.prefix(position)))
                try ComputeLane.shared.run { try session.evaluate(open) }
            case .beginCall:
                if !ahead.isEmpty {
                    _ = session.keepCommonPrefix(with: Array(session.cachedTokens.dropLast(ahead.confirmed.count)))
                    ahead = Lookahead()
                }
                callSampler = nil
            case .closeCall:
                let close = try session.tokenize("\n" + ToolCallFormat.close, addingStart: false)
                try ComputeLane.shared.run { try session.evaluate(close) }
            case .measureNextCall:
                let line = try session.tokenize("\n", addingStart: false)
                try ComputeLane.shared.run { try session.evaluate(line) }
                let another = session.probability(ofAnyOf: session.callOpeningTokens)
                logger.debug("call decision: another call on p(open) \(another) against \(configuration.callDecision.nextCallThreshold)")
                return .nextCallOpening(another)
            case .openNextCall:
                try ComputeLane.shared.run { try session.evaluate(open) }
            case .finish:
                break
            case .fail(let error):
                throw error
            }
            return nil
        }
        /// Feeds `event` to the machine and carries out its actions, and those of the events
        /// they lead to.
        func handle(_ event: ToolWriterMachine.Event) throws {
            var next: ToolWriterMachine.Event? = event
            while let event = next {
                next = nil
                for action in try machine.handle(event).get() {
                    if let measured = try perform(action) { next = measured }
                }
            }
        }

        if case .decidingOpening = machine.state {
            names = session.firstTokens(of: toolNames)
            opening = session.callOpeningTokens.union(names)
            try handle(.callOpening(session.probability(ofAnyOf: opening)))
        }
        while !machine.isOver {
            guard generated < sampling.maxTokens else {
                try handle(.limit)
                break
            }
            if Task.isCancelled {
                try handle(.cancelled)
                break
            }
            guard session.cachedTokens.count < session.contextLength else {
                try handle(.limit)
                break
            }
            let sampler: LlamaSampler
            switch machine.sampling {
            case .free:
                sampler = freeSampler
            case .freeWithoutCallOpening:
                if answerSampler == nil, !opening.isEmpty { answerSampler = try session.makeSampler(sampling, banning: opening) }
                sampler = answerSampler ?? freeSampler
            case .call:
                let grammar = try callSampler ?? session.makeSampler(sampling, grammar: callGrammar)
                callSampler = grammar
                sampler = grammar
            }
            let (token, evaluated) = ahead.next() ?? (session.sample(with: sampler), false)
            if session.isEndOfGeneration(token) {
                try handle(.endOfGeneration)
                break
            }
            generated += 1
            // Where `token` is (or goes) in memory.
            let position = session.cachedTokens.count - (evaluated ? ahead.confirmed.count + 1 : 0)
            if evaluated {
                // In memory already.
            } else if machine.writesFreeText {
                giveWay(after: generated)
                try advance(past: token, session: session, sampler: freeSampler, lookup: lookup, ahead: &ahead)
            } else {
                try ComputeLane.shared.run { try session.evaluate([token]) }
            }
            try handle(.token(session.bytes(of: token, special: true), position: position))
        }
        return (machine.finishReason ?? .length, generated)
    }

    /// The prompt text the model's chat template makes of `messages` (with the assistant's
    /// turn opened), as evaluated by ``complete(_:)`` when nothing is trimmed.
    public func renderedPrompt(for messages: [ChatMessage]) throws -> String {
        try loadedSession().formatPrompt(messages)
    }

    /// How likely it is that the user has finished their turn with `utterance` (after
    /// `history`): the probability the model gives to ending the user's message right after
    /// these words, read from its chat template (the text-based end-of-utterance detection
    /// LiveKit's turn detector uses). "What is the capital of France?" scores high; "Can you
    /// tell me" low. The prompt shares its prefix with the reply's, so the context memory it
    /// leaves is reused when the reply starts.
    public func endOfTurnProbability(
        after history: [ChatMessage], utterance: String,
        scoring: TurnScoring = .sentenceEnd, tools: [ToolDefinition] = []
    ) throws -> Double {
        let words = scoring == .sentenceEnd ? Self.withoutFinalPunctuation(utterance) : utterance.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !words.isEmpty else { return 0 }
        let session = try loadedSession()
        session.useThreads(CoreShare.shared.threads(upTo: configuration.threads))
        let tokens = try openPrompt(history, words: words, session: session, tools: tools)
        guard tokens.count < session.contextLength else { throw LlamaError.promptTooLong(tokens: tokens.count, contextLength: session.contextLength) }
        // A real-time conversation's first evaluation is its first pause's score: it reads the
        // instructions back from disk, or evaluates them and keeps them for the next process.
        let fromInstructions = try bringInstructions(of: history, before: tokens, session: session, tools: tools)
        let reused = try ComputeLane.shared.run { try session.load(prompt: tokens) }
        let evaluated = fromInstructions + tokens.count - reused
        scored.withLock { $0 += evaluated }
        logger.debug("scored the end of the turn on \(evaluated) tokens beyond memory")
        return scoring == .sentenceEnd ? session.sentenceEndProbability() : session.endOfTurnProbability()
    }

    /// The tokens of the prompt a reply to `history` plus a user message beginning with
    /// `words` starts with: the chat template's rendering (with the default system prompt, as
    /// a request gets it), cut right after the words, before the template closes the message.
    func openPrompt(_ history: [ChatMessage], words: String, session: LlamaSession, tools: [ToolDefinition] = []) throws -> [Int32] {
        let marker = "\u{1F}parley-end-of-words\u{1F}"
        var messages = history
        if !tools.isEmpty || messages.contains(where: \.isToolExchange) {
            // Rendered as a reply with these tools renders it, so the reply finds it in memory.
            messages = ToolCallFormat.render(messages + [.user(words + marker)], tools: tools, defaultSystem: configuration.defaultSystemPrompt)
        } else {
            if let system = configuration.defaultSystemPrompt, !messages.contains(where: { $0.role == .system }) {
                messages.insert(.system(system), at: 0)
            }
            messages.append(.user(words + marker))
        }
        let rendered = try session.formatPrompt(messages)
        guard let cut = rendered.range(of: marker, options: .backwards) else { throw LlamaError.chatTemplateUnavailable }
        return try session.tokenize(String(rendered[..<cut.lowerBound]))
    }

    /// Tokens evaluated per turn on the compute lane while prefilling: few enough that a
    /// transcription (or the reply) waiting for the lane waits one short batch (about 0.2 s
    /// for Qwen2.5 1.5B on two cores), enough that a batch is not much slower per token than
    /// a long one. (Measured there, 32 tokens: 1-token batches 13–14 tok/s, 4: 21–35, 6:
    /// 23–31, 8: 19–32, 16: 37–45, 32: 52–57.)
    static let prefillBatch = 6

    /// Tokens evaluated per turn on the compute lane while a prefill evaluates instructions
    /// that are not on disk yet (once per data directory, model and tool list): about twice the
    /// tokens per second of ``prefillBatch`` (above), for a wait of about 0.6 s on the lane.
    static let instructionsBatch = 32

    /// Evaluates the start of the prompt a reply to `messages` will have, through the words of
    /// its last message (the user's, still open), reusing what memory already holds, so that
    /// the reply evaluates only the rest. In batches of ``prefillBatch`` tokens, each taking
    /// its turn on the compute lane; cancelling stops it between two, and so does a request
    /// (another conversation's, on a server): it is not held up, and its prompt replaces this
    /// one in memory anyway. Memory that holds no more than the start of this prompt gets its
    /// instructions first, from disk when a run kept them, else evaluated (in batches of
    /// ``instructionsBatch``, not stopped by requests) and kept (see
    /// ``bringInstructions(of:before:session:tools:batch:)``). Does nothing for a request whose
    /// last message is not the user's, or that has images, or whose start would not leave half
    /// the context free, or that shares too little with memory (more than
    /// ``Configuration/prefillLimit`` tokens to evaluate: another conversation is there), and
    /// while the model is not loaded.
    public func prefill(_ messages: [ChatMessage], tools: [ToolDefinition] = []) throws {
        // Never loads the model: a prefill only helps a model that is ready to answer.
        guard let last = messages.last, last.role == .user, !last.hasImages, let session else { return }
        session.useThreads(CoreShare.shared.threads(upTo: configuration.threads))
        let tokens = try openPrompt(
            Array(messages.dropLast()), words: last.text.trimmingCharacters(in: .whitespacesAndNewlines),
            session: session, tools: tools)
        guard tokens.count < session.contextLength / 2 else { return }
        // Memory holding another conversation (a server's other session) would be undone for
        // a prompt that may be undone again before its reply: too dear to evaluate ahead.
        // Memory holding nothing but the start of this prompt (or nothing) undoes nothing: the
        // prompt is evaluated whole, its instructions first, read back from disk or evaluated
        // and kept there (requests wait for them: every reply needs them, and the next runs
        // read them back in milliseconds).
        let undoesNothing = session.sharedPrefix(with: tokens) == session.cachedTokens.count
        if undoesNothing {
            let evaluated = try bringInstructions(of: messages, before: tokens, session: session, tools: tools, batch: Self.instructionsBatch)
            prefilled.withLock { $0 += evaluated }
        }
        let shared = session.sharedPrefix(with: tokens)
        guard tokens.count - shared <= configuration.prefillLimit || undoesNothing else { return }
        // All there already (a late partial transcript's words, after a score of more of them:
        // kept, for the reply).
        guard shared < tokens.count else { return }
        var position = session.keepCommonPrefix(with: tokens)
        while position < tokens.count, !Task.isCancelled, requestsUnderWay.withLock({ $0 }) == 0 {
            let batch = Array(tokens[position..<min(tokens.count, position + Self.prefillBatch)])
            try ComputeLane.shared.run { try session.evaluate(batch) }
            position += batch.count
            prefilled.withLock { $0 += batch.count }
        }
    }

    /// What ``endOfTurnProbability(after:utterance:scoring:)`` reads after the words.
    public enum TurnScoring: Sendable {
        /// The probability that the sentence, or the message, ends there (`.`, `?`, `!` or the
        /// end of the turn next), on the words without their final punctuation. A transcriber
        /// punctuates what it hears as if it were whole ("What is the name of?"), so the mark
        /// says nothing; whether the model would put one there does.
        case sentenceEnd
        /// The probability that the message ends there, on the words as written.
        case messageEnd
    }

    /// `text` without surrounding whitespace and without the punctuation a transcriber puts at
    /// its end (`.`, `?`, `!`, `,`, `;`, `:`, `…`, and quotes).
    static func withoutFinalPunctuation(_ text: String) -> String {
        var words = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while let last = words.last, last.isWhitespace || ".?!,;:…\"'”’".contains(last) { words.removeLast() }
        return String(words)
    }

    /// Tokenizes the conversation, dropping the oldest turns after the system prompt until it
    /// leaves `reserve` tokens free for the answer.
    private func fittedPrompt(_ messages: [ChatMessage], session: LlamaSession, reserve: Int, suffix: String = "") throws -> [Int32] {
        // Instructions alone are a request too (a bot that speaks first); nothing at all is not.
        guard messages.contains(where: { !$0.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !$0.toolCalls.isEmpty }) else {
            throw ProviderError.invalidInput("The request has no messages: send a user message, or instructions to answer.")
        }
        var kept = messages
        let budget = session.contextLength - min(reserve, session.contextLength / 2)
        var tokens = try session.tokenize(session.formatPrompt(kept) + suffix)
        guard tokens.count > budget else { return tokens }
        // Each message's share is tokenized once, and the oldest are dropped until the excess
        // is covered; the whole prompt is tokenized again only to check the cut (linear, not
        // one whole tokenization per message dropped), and a cancelled request stops here.
        var costs = try kept.map { try session.tokenize($0.text).count + 4 }
        while tokens.count > budget {
            try Task.checkCancellation()
            var excess = tokens.count - budget
            while excess > 0 {
                guard let drop = kept.firstIndex(where: { $0.role != .system }), drop < kept.count - 1 else {
                    throw LlamaError.promptTooLong(tokens: tokens.count, contextLength: session.contextLength)
                }
                excess -= costs[drop]
                kept.remove(at: drop)
                costs.remove(at: drop)
            }
            tokens = try session.tokenize(session.formatPrompt(kept) + suffix)
        }
        return tokens
    }
}

extension LlamaLanguageModel: TurnPredictor {
    public func completion(of utterance: String, after history: [ChatMessage], tools: [ToolDefinition]) async throws -> Double {
        try endOfTurnProbability(after: history, utterance: utterance, tools: tools)
    }

    public nonisolated func completionThreshold() async -> Double? {
        configuration.endOfTurnThreshold
    }
}

extension LlamaLanguageModel: PromptPrefiller {}

extension LlamaLanguageModel {
    /// llama.cpp in this process.
    public nonisolated var runsOnDevice: Bool { true }

    /// It evaluates a reply's prompt while the user speaks.
    public nonisolated var promptPrefiller: (any PromptPrefiller)? { self }

    /// It scores whether the user's words are a whole turn.
    public nonisolated var turnPredictor: (any TurnPredictor)? { self }
}

extension SwitchableLanguageModel {
    /// llama.cpp in this process, whichever model is current.
    public var runsOnDevice: Bool { true }

    /// It evaluates a reply's prompt on the current model while the user speaks.
    public var promptPrefiller: (any PromptPrefiller)? { self }

    /// It scores whether the user's words are a whole turn on the current model.
    public var turnPredictor: (any TurnPredictor)? { self }
}

extension SwitchableLanguageModel: TurnPredictor {
    public func completion(of utterance: String, after history: [ChatMessage], tools: [ToolDefinition]) async throws -> Double {
        try await current.endOfTurnProbability(after: history, utterance: utterance, tools: tools)
    }

    public func completionThreshold() async -> Double? {
        current.configuration.endOfTurnThreshold
    }
}
