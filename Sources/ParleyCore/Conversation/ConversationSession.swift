import Logging

/// A conversation that lasts: audio frames, typed text and images come in, turn after turn and
/// run after run; each spoken turn ends after the configured silence and is transcribed (with
/// partial transcripts while the user speaks), the reply is generated and spoken sentence by
/// sentence, and the user can cut it short by speaking (barge-in) or with ``cancel()``. Every
/// turn is written to the journal as it ends. Any number of subscribers follow it through
/// ``updates()`` until ``close()``.
///
/// The rules live in ``ConversationStateMachine``; the session feeds it events and carries out
/// the action each returns, with value-type stages: an ``UtteranceDetector`` finds speech, a
/// transcription stage turns it into text, a ``ReplySpeaker`` answers, and a turn recorder
/// writes the turns up. Time (latencies, the listen timeout, timings of the reply) is read on
/// the injected clock `C`, so tests drive it with a manual clock.
///
/// Feed audio from one task at a time; frames are analysed in the order they are appended.
public actor ConversationSession<C: Clock> where C.Duration == Duration {
    /// Settings of a conversation.
    public typealias Configuration = ConversationConfiguration
    /// Why a conversation could not do what was asked.
    public typealias Failure = ConversationFailure
    /// Why the conversation refused a request.
    public typealias Rejection = ConversationStateMachine<C.Instant>.Rejection
    typealias Machine = ConversationStateMachine<C.Instant>

    /// A reply being generated and played.
    struct Reply {
        var id: Int
        var task: Task<Void, Never>
        /// Whether its audio has begun to play.
        var playing = false
        /// Whether it is being cut short (its late reports are ignored).
        var cut = false
    }

    /// What one ``run(_:)`` has seen.
    struct RunRecord {
        var turns: [TurnResult] = []
        /// Samples received, at the VAD's rate.
        var received = 0
        /// Whether speech was found in which no words were recognised.
        var heardNothing = false
    }

    /// The voice activity detector.
    public nonisolated let vad: any VoiceActivityDetector
    /// The transcriber.
    public nonisolated let stt: any SpeechToTextProvider
    /// The language model.
    public nonisolated let llm: any LanguageModelProvider
    /// The voice.
    public nonisolated let tts: any TextToSpeechProvider
    /// The settings in force.
    public nonisolated let configuration: Configuration
    /// The language the latest final transcript was heard in, as the transcriber said (the
    /// detected one when the language is `auto`); set before ``ConversationUpdate/finalTranscript(_:)``
    /// is broadcast, so a reader of that update finds the utterance's own language here.
    public internal(set) var heardLanguage: String?

    let clock: C
    let output: any AudioOutput
    let journal: (any ConversationJournal)?
    let speaker: ReplySpeaker
    let logger: Logger

    var machine: Machine
    var history: [ChatMessage]
    /// Instructions that replace the system prompt for the next reply only (``respond(instructions:)``).
    var replyInstructions: String?
    /// Finds speech while the audio is open.
    var detector: UtteranceDetector?
    var transcriber: UtteranceTranscriber
    var recorder: TurnRecorder<C.Instant>
    var reply: Reply?
    /// The number of the last reply started.
    var replies = 0
    var listenTimer: Task<Void, Never>?
    /// The windowed partial transcript under way, if any: cancelled when the words are
    /// transcribed whole (a pause scored, the utterance ended), which makes it stale.
    var windowedPartial: Task<Void, Never>?
    /// Time spent in voice activity detection since the last spoken turn.
    var detection = Duration.zero
    /// When the audio arrived: the detector's sample count after each frame, and the time.
    var arrivals = ArrivalLog<C.Instant>()
    /// Speech in which no words were recognised, kept for the utterance that follows.
    var kept: KeptSpeech
    /// End-of-turn prediction. A stretch of silence is named by the end of the speech before
    /// it (the open segment's end, which moves whenever speech resumes): the stretch being
    /// scored, its score, and the transcript of an utterance the prediction ended.
    var scoringSegmentEnd: Int?
    /// The transcription and score of the stretch named by ``scoringSegmentEnd``, while under
    /// way: cancelled when the user speaks again (or the utterance ends without it), which
    /// makes it stale.
    var pauseScoring: Task<Void, Never>?
    var turnScore: TurnScore?
    var preheard: (end: Int, transcript: Transcript, silence: Double, reason: String)?
    /// The reply started on the words of the current pause, before the turn was confirmed.
    var speculation: Speculation?
    /// The number of the last speculative reply started.
    var speculations = 0
    /// The evaluation of the reply's prompt while the user speaks (``prefillReply(upTo:)``).
    var prefill: Task<Void, Never>?
    /// The speculative reply that became a reply: its number, and the reply's.
    var adoptedSpeculation: (number: Int, reply: Int)?

    /// The words of the open utterance, transcribed and scored during a stretch of silence.
    struct TurnScore: Sendable {
        var segment: SpeechSegment
        var transcript: Transcript
        var completion: Double?
        /// The predictor's own threshold, when it has one (``TurnPredictor/completionThreshold()``)
        /// and the words decided.
        var threshold: Double?
        /// What the voice and the words said, and which decided.
        var judgement = TurnJudgement()
    }
    /// Images that go with the next spoken turn (``attach(images:)``).
    var pendingImages: [ImageAttachment] = []
    /// The failure that put the conversation in the error state, until it leaves it.
    var failure: (any Error)?
    var currentRun: RunRecord?
    /// The replies whose turns callers of ``send(text:images:)`` wait for.
    var awaitedReplies: Set<Int> = []
    /// Awaited turns that ended before their caller waited (`nil`: no turn to report).
    var resolvedTurns: [Int: TurnResult?] = [:]
    /// Callers waiting for their turn, by reply.
    var turnWaiters: [Int: CheckedContinuation<TurnResult?, Never>] = [:]
    var subscribers: [Int: AsyncStream<ConversationUpdate>.Continuation] = [:]
    var lastSubscriber = 0
    /// How many updates have been broadcast.
    var broadcasts = 0
    var closed = false
    /// The audio just before the wake phrase was heard (``ConversationConfiguration/wakeWord``).
    var wakePreRoll = WakePreRoll()

    /// Creates a conversation.
    /// - Parameters:
    ///   - vad: finds speech in the incoming audio.
    ///   - stt: transcribes each turn (and gives partial transcripts while the user speaks).
    ///   - llm: writes the replies.
    ///   - tts: speaks the replies, sentence by sentence.
    ///   - output: where replies are played.
    ///   - journal: where turns are written down, if anywhere.
    ///   - history: earlier messages of this conversation (without the system prompt), to
    ///     continue it.
    ///   - configuration: the conversation's rules: gates, silences, barge-in, tools.
    ///   - clock: the clock that times turns and the listen timeout.
    ///   - logger: where the session logs fallbacks and failures.
    public init(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider, llm: any LanguageModelProvider,
        tts: any TextToSpeechProvider, output: any AudioOutput, journal: (any ConversationJournal)? = nil,
        history: [ChatMessage] = [], configuration: Configuration = Configuration(), clock: C,
        logger: Logger = Logger(label: "parley.conversation")
    ) {
        self.vad = vad
        self.stt = stt
        self.llm = llm
        self.tts = tts
        self.output = output
        self.journal = journal
        // The silence that ends any turn is one setting, the segmentation's: the turn policy
        // waits as long for unfinished words.
        var configuration = configuration
        if var prediction = configuration.turnPrediction {
            prediction.policy.longSilence = max(configuration.segmentation.endSilence, prediction.policy.shortSilence)
            configuration.turnPrediction = prediction
        }
        // Waiting for a wake phrase, the conversation listens for a while after it (and after
        // each reply), then waits for the phrase again.
        if let gate = configuration.wakeWord, configuration.rules.listenTimeout == nil {
            configuration.rules.listenTimeout = .milliseconds(Int((gate.followUp * 1000).rounded()))
        }
        self.configuration = configuration
        self.clock = clock
        self.speaker = ReplySpeaker(llm: llm, tts: tts, speech: configuration.speech, tools: configuration.tools)
        self.logger = logger
        self.machine = Machine(configuration: configuration.rules)
        self.history = [.system(configuration.systemPrompt)] + history.filter { $0.role != .system }
        self.transcriber = UtteranceTranscriber(
            stt: stt, options: configuration.transcription, partialInterval: configuration.partialInterval,
            speechThreshold: configuration.segmentation.onThreshold)
        // Kept until 3 s after the silence that ended its turn.
        self.kept = KeptSpeech(sampleRate: vad.sampleRate, maxGap: configuration.segmentation.endSilence + 3)
        self.recorder = TurnRecorder(
            vad: vad.identity.description, stt: stt.identity.description, tts: tts.identity.description,
            endpointSilence: configuration.segmentation.endSilence)
    }

    /// Where the conversation stands.
    public var state: ConversationState { machine.state }

    // MARK: - Following the conversation

    /// A new stream of everything that happens from now on; every subscriber gets every
    /// update. The stream ends when the session is closed (or at once if it is).
    public func updates() -> AsyncStream<ConversationUpdate> {
        let (stream, sink) = AsyncStream.makeStream(of: ConversationUpdate.self)
        guard !closed else {
            sink.finish()
            return stream
        }
        lastSubscriber += 1
        let id = lastSubscriber
        subscribers[id] = sink
        sink.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// How many updates have been broadcast since the session was made. Something that
    /// happens after an update was broadcast (a reply chunk played, say) can wait until a
    /// subscriber has followed that many, to be told after it (see ``countedUpdates()``).
    public var updatesBroadcast: Int { broadcasts }

    /// A new stream of everything that happens from now on, as ``updates()``, with the number
    /// of updates broadcast before it began: its *n*-th update is the session's
    /// `before + n`-th (see ``updatesBroadcast``).
    public func countedUpdates() -> (updates: AsyncStream<ConversationUpdate>, before: Int) {
        (updates(), broadcasts)
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    func broadcast(_ update: ConversationUpdate) {
        broadcasts += 1
        for sink in subscribers.values { sink.yield(update) }
    }

    // MARK: - Input

    /// Adds a frame of mono audio (any length, any rate: frames at a rate other than the
    /// VAD's are converted as one continuous stream). Audio is listened to while the
    /// conversation is armed or active; otherwise it is dropped. In half duplex this waits for
    /// the reply in progress first.
    /// - Throws: the failure that stopped the conversation (a provider's or the journal's
    ///   error) until it is reset; ``ConversationFailure/closed`` after ``close()``.
    public func append(_ frame: AudioBuffer) async throws {
        try checkOpen()
        if configuration.duplex == .half, let task = reply?.task { await task.value }
        if let failure { throw failure }
        do {
            try await listen(to: frame)
        } catch {
            await fail(error)
            throw error
        }
    }

    /// Runs the conversation over `frames` until they end and the last reply has been played,
    /// and returns the turns of this run. The session stays open for more runs, typed turns
    /// and subscribers; with ``ConversationConfiguration/startsListening`` a run opens the gates and
    /// starts listening, and every run ends with the conversation stopped.
    ///
    /// - Throws: ``Failure`` when no turn was found; a provider's or the journal's error,
    ///   after the turns before it were written down.
    public func run<Frames: AsyncSequence & Sendable>(_ frames: Frames) async throws -> [TurnResult] where Frames.Element == AudioBuffer {
        try checkOpen()
        guard currentRun == nil else { throw Failure.alreadyRunning }
        currentRun = RunRecord()
        do {
            if case .error = machine.state { try await apply(.reset) }
            if configuration.startsListening {
                for gate in configuration.rules.requiredGates { try await apply(.setGate(gate, open: true)) }
                try await apply(.arm)
                // With a wake word, listening starts when the phrase is heard.
                if configuration.wakeWord == nil { try await apply(.startListening(.user, at: clock.now)) }
            }
            for try await frame in frames { try await append(frame) }
            try await endOfInput()
            if let task = reply?.task { await task.value }
            if let failure { throw failure }
            if machine.state != .idle { try await apply(.stop) }
        } catch {
            currentRun = nil
            await fail(error)
            throw error
        }
        let record = currentRun ?? RunRecord()
        currentRun = nil
        guard !record.turns.isEmpty else {
            throw record.heardNothing ? Failure.nothingTranscribed : Failure.noSpeech(duration: Double(record.received) / Double(vad.sampleRate))
        }
        return record.turns
    }

    /// Attaches images to the next spoken turn: the question the user says next is sent with
    /// them (a photographed page, say), and they are saved with it. Attaching again before
    /// that turn adds to them.
    ///
    /// - Throws: ``UnsupportedCapabilityError`` when the model takes no images.
    public func attach(images: [ImageAttachment]) throws {
        try checkOpen()
        if !images.isEmpty, !llm.capabilities.images {
            throw UnsupportedCapabilityError(missing: [.images], providers: [llm.identity.description])
        }
        pendingImages += images
    }

    /// Sends a typed message, with images for a model that reads them (``ChatMessage/Part/image(data:mimeType:)``
    /// parts, sent before the text), and returns the turn once its reply has been played or
    /// cut short; `nil` when the reply was cancelled before anything was heard.
    /// `instructions`, when given, replace the system prompt for this reply only.
    ///
    /// Typed text is taken while the conversation is idle, armed or listening (not while the
    /// user speaks or a reply is in progress); afterwards the conversation returns there.
    /// - Throws: ``UnsupportedCapabilityError`` when no provider of the model can read images;
    ///   a ``Rejection``; the model's, the voice's or the journal's error.
    @discardableResult
    public func send(text: String, images: [ChatMessage.Part] = [], instructions: String? = nil) async throws -> TurnResult? {
        try checkOpen()
        if !images.isEmpty, !llm.capabilities.images {
            throw UnsupportedCapabilityError(missing: [.images], providers: [llm.identity.description])
        }
        replyInstructions = instructions
        return try await answer(.typed(text), cue: .typed(images))
    }

    /// Adds the result of a tool the client ran (a call of ``TurnResult/toolCalls``) to the
    /// conversation; ``respondToToolResults()`` then lets the model answer with it.
    /// - Throws: ``ToolResultError`` when no earlier reply made the call, or it was answered.
    public func addToolResult(callID: String, output: String, isError: Bool = false) async throws {
        try checkOpen()
        let called = history.flatMap(\.toolCalls)
        guard let call = called.first(where: { $0.id == callID }) else { throw ToolResultError.unknownCall(callID) }
        guard !history.contains(where: { $0.role == .tool && $0.toolCallID == callID }) else { throw ToolResultError.answered(callID) }
        let result = ChatMessage.tool(callID: callID, name: call.name, content: output, isError: isError)
        history.append(result)
        try await journal?.record(JournalEntry(toolExchange: result))
    }

    /// Starts the reply to the tool results added since the last reply (spoken like any
    /// other), and returns its turn once played; a call the model was forced to make is not
    /// forced again.
    @discardableResult
    public func respondToToolResults() async throws -> TurnResult? {
        try checkOpen()
        guard history.last?.role == .tool else { throw ToolResultError.nothingToAnswer }
        replyInstructions = nil
        return try await answer(.toolResults, cue: .toolResults)
    }

    /// Starts a reply to the conversation as it stands, with no new message of the user's (the
    /// assistant speaks first, or answers messages added with ``insert(_:at:)``), and returns
    /// its turn once played. `instructions`, when given, replace the system prompt for this
    /// reply only.
    @discardableResult
    public func respond(instructions: String? = nil) async throws -> TurnResult? {
        try checkOpen()
        replyInstructions = instructions
        return try await answer(.toolResults, cue: .toolResults)
    }

    /// The conversation's messages after the system prompt, in order: what the next reply
    /// answers (before trimming to the context window).
    public var messages: [ChatMessage] { Array(history.dropFirst()) }

    /// Puts `message` (the user's, the assistant's, or an instruction) into the conversation
    /// at `index` among ``messages`` (clamped; `nil`: at the end), without replying. A
    /// client's context: it is not written to the journal.
    /// - Throws: ``ProviderError/invalidInput(_:)`` for a tool message (tool results go
    ///   through ``addToolResult(callID:output:isError:)``).
    public func insert(_ message: ChatMessage, at index: Int? = nil) throws {
        try checkOpen()
        guard message.role != .tool else { throw ProviderError.invalidInput("A tool result answers a call: add it with addToolResult.") }
        let position = index.map { min(max(0, $0), history.count - 1) + 1 } ?? history.count
        history.insert(message, at: position)
    }

    /// Removes the message at `index` among ``messages``; returns it, or `nil` when there is
    /// none there.
    @discardableResult
    public func removeMessage(at index: Int) throws -> ChatMessage? {
        try checkOpen()
        guard index >= 0, index + 1 < history.count else { return nil }
        return history.remove(at: index + 1)
    }

    /// Applies `event` (a typed message or tool results), and returns the turn its reply ends.
    private func answer(_ event: Machine.Event, cue: Cue) async throws -> TurnResult? {
        let action = try applyOrThrow(event)
        // Accepted, the message is the next reply's question: nothing else can start one now.
        let id = replies + 1
        awaitedReplies.insert(id)
        defer {
            awaitedReplies.remove(id)
            resolvedTurns[id] = nil
        }
        do {
            try await carryOut(action, cue)
        } catch {
            await fail(error)
            throw error
        }
        let turn = await withCheckedContinuation { (waiter: CheckedContinuation<TurnResult?, Never>) in
            if let resolved = resolvedTurns.removeValue(forKey: id) {
                waiter.resume(returning: resolved)
            } else {
                turnWaiters[id] = waiter
            }
        }
        if let failure { throw failure }
        return turn
    }

    /// Turn `id` has ended with `turn` (`nil`: its reply was cancelled before it was heard, or
    /// failed); a caller waiting for it gets it.
    func resolveTurn(_ id: Int, _ turn: TurnResult?) {
        guard awaitedReplies.contains(id) else { return }
        if let waiter = turnWaiters.removeValue(forKey: id) {
            waiter.resume(returning: turn)
        } else {
            resolvedTurns[id] = .some(turn)
        }
    }

    // MARK: - Control

    /// Opens or closes one of the gates the host controls (closing a required gate while the
    /// conversation is active stops it).
    public func setGate(_ gate: ConversationGate, open: Bool) async throws {
        try checkOpen()
        try await perform(.setGate(gate, open: open))
    }

    /// Makes the conversation ready to listen, opening its audio; every required gate must be
    /// open.
    public func arm() async throws {
        try checkOpen()
        try await perform(.arm)
    }

    /// Starts listening, on a deliberate `trigger` only (a tap, a hot key; not a scroll).
    public func startListening(_ trigger: ListenTrigger) async throws {
        try checkOpen()
        try await perform(.startListening(trigger, at: clock.now))
    }

    /// Starts listening for the user when the conversation is armed and no wake word gates it:
    /// with a wake word, listening starts when the phrase is heard. For audio that simply
    /// arrives (a realtime client's microphone); a deliberate tap calls ``startListening(_:)``,
    /// which the wake word does not gate.
    public func listenUnlessAwaitingWakeWord() async throws {
        try checkOpen()
        guard machine.state == .armed, configuration.wakeWord == nil else { return }
        try await perform(.startListening(.user, at: clock.now))
    }

    /// Stops listening; if the user is speaking, the utterance ends now and is answered
    /// (push-to-talk released). The audio stays open.
    public func stopListening() async throws {
        try checkOpen()
        try await perform(.stopListening)
    }

    /// Cancels the reply in progress; what was heard of it is saved.
    public func cancel() async throws {
        try checkOpen()
        try await perform(.cancelReply(at: clock.now))
    }

    /// Stops listening and any reply in progress (what was heard of it is saved), and closes
    /// the audio.
    public func stop() async throws {
        try checkOpen()
        try await perform(.stop)
    }

    /// Leaves the error state after a failure.
    public func reset() async throws {
        try checkOpen()
        try await perform(.reset)
    }

    /// Stops the conversation and ends every subscriber's stream; the session takes no more
    /// input. A journal error while saving the reply being cut short is logged.
    public func close() async {
        guard !closed else { return }
        if machine.state != .idle, let action = handle(.stop) {
            do {
                try await carryOut(action)
            } catch {
                logger.error("conversation: closing failed: \(error)")
            }
        }
        closed = true
        discardSpeculation(because: "the conversation closed")
        listenTimer?.cancel()
        listenTimer = nil
        transcriber.discard()
        for sink in subscribers.values { sink.finish() }
        subscribers.removeAll()
    }

    private func checkOpen() throws {
        if closed { throw Failure.closed }
    }
}

extension ConversationSession where C == ContinuousClock {
    /// Creates a conversation timed on the continuous clock.
    public init(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider, llm: any LanguageModelProvider,
        tts: any TextToSpeechProvider, output: any AudioOutput, journal: (any ConversationJournal)? = nil,
        history: [ChatMessage] = [], configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "parley.conversation")
    ) {
        self.init(
            vad: vad, stt: stt, llm: llm, tts: tts, output: output, journal: journal, history: history,
            configuration: configuration, clock: ContinuousClock(), logger: logger)
    }
}
