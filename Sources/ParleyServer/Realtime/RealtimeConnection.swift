import Foundation
import Logging
import ParleyCore
import ParleyRuntime

/// One realtime voice session over a WebSocket: OpenAI Realtime client events in, a
/// ``ConversationSession`` on the runtime's providers underneath, OpenAI Realtime server
/// events out.
///
/// The conversation is made when the first audio, message or response request arrives, with
/// the settings `session.update` gave until then; a later change that the conversation
/// cannot take on (instructions, voice, turn detection, reply length) makes a new one that
/// continues the same saved thread. Every turn is saved as it ends, so a connection that
/// drops loses nothing that was said.
///
/// Client events are handled one at a time, in order (the caller awaits ``receive(_:)``),
/// except that audio work (appends, commits, clears) runs in its own order on a lane of its
/// own, since a turn that ends inside it may wait for the client's review of its transcript;
/// outgoing events go to `send`, one JSON text frame each, in the order they happen.
actor RealtimeConnection {
    typealias Rules = RealtimeProtocol<ContinuousClock.Instant>

    /// An item of the conversation as the client knows it, for `conversation.item.retrieve`
    /// and `.delete`: the item, and for a message its role and text (how it is found among
    /// the conversation's messages).
    struct KnownItem {
        var item: RealtimeItem
        var role: ChatMessage.Role?
        var text: String?
        /// Whether the client put it into the conversation as context (not saved with the
        /// thread: a conversation made anew gets it from the one before).
        var isContext = false

        /// Whether `message` is the message this item stands for.
        func matches(_ message: ChatMessage) -> Bool {
            guard let role, let text else { return false }
            return RealtimeConnection.sameMessage(message, role: role, text: text)
        }
    }

    /// A piece of audio work: what to do with the session it was meant for.
    struct LaneWork: Sendable {
        var session: ConversationSession<ContinuousClock>
        var eventID: String?
        /// The memory its audio takes, in bytes (0 for work without audio).
        var bytes = 0
        var work: @Sendable (ConversationSession<ContinuousClock>) async throws -> Void
    }

    private let environment: ServerEnvironment
    private let logger: Logger
    private let sessionID = RealtimeConnection.id("sess")
    /// Whether the client speaks the beta protocol (`OpenAI-Beta: realtime=v1`): server events
    /// then carry their beta names.
    private let beta: Bool
    private let emit: @Sendable (String) -> Void
    private var settings: RealtimeSessionSettings
    private var options: ConversationOptions
    private var conversation: RuntimeConversation<ContinuousClock>?
    /// The conversation's echo cancellation (`session.parley.echo_cancellation`), if on.
    private var echo: RealtimeEcho?
    private var following: Task<Void, Never>?
    /// How many of the session's updates (``ConversationSession/updatesBroadcast``) the
    /// follower has taken up.
    private var followedUpdates = 0
    /// Reply chunks waiting for the follower to take up the updates broadcast before them.
    private var followWaiters: [Int: (needed: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var lastFollowWaiter = 0
    /// Which session's updates are counted: a closing session's follower may still be running.
    private var followGeneration = 0
    /// The saved thread to continue (asked for, or written by an earlier conversation).
    private var thread: Int64?
    /// The messages of a conversation that a session.update replaced, for the next one to take
    /// the client's context from (``restoreContext(_:into:)``).
    private var carriedMessages: [ChatMessage]?

    private var lastEvent = 0
    /// The last item of the conversation (`previous_item_id`).
    private var lastItem: String?
    /// The conversation's items by id (messages, replies, tool calls and outputs).
    private var items: [String: KnownItem] = [:]
    /// What the next reply is sent with (`response.create`'s parameters).
    private var nextResponse = RealtimeClientEvent.ResponseParameters()
    /// The protocol's own state (a commit and the transcript it awaits, what the next response
    /// answers, shutting down): asked about each client event and conversation update.
    private var protocolState: Rules
    /// Audio work (appends, commits, clears) in the order the client sent it; see
    /// ``onAudioLane(_:eventID:_:)``.
    private let lane = AsyncStream.makeStream(of: LaneWork.self)
    private var laneRunner: Task<Void, Never>?
    /// How many pieces of audio work are queued or running.
    private var laneDepth = 0
    /// The most audio work queued before the reading of client events waits (about 20 s of
    /// 100 ms appends).
    private static let laneLimit = 200

    /// The final transcript the conversation waits on while the client reviews it
    /// (`create_response: false`), with the user item it belongs to.
    private var review = TranscriptReview()
    /// The language the latest final transcript was heard in, when the language is `auto`.
    private var heardLanguage: String?

    /// The language the client asked for, else the server's (`parley serve --language`), else English.
    private var languageSetting: LanguageSetting {
        settings.transcription?.language.flatMap { try? LanguageSetting(parsing: $0) } ?? environment.configuration.language ?? .english
    }

    /// Creates a connection on `environment`'s runtime; `model` is the `model` query item,
    /// `thread` a saved thread to continue (a Parley extension), `options` what the
    /// conversation is made with (its owner among them).
    init(
        environment: ServerEnvironment, model: String, thread: Int64?, options: ConversationOptions, beta: Bool,
        transcriptionOnly: Bool = false, logger: Logger, emit: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.logger = logger
        self.beta = beta
        self.emit = emit
        self.thread = thread
        self.options = options
        self.protocolState = Rules(audioLimit: environment.configuration.maxRealtimeQueuedAudioBytes)
        self.settings = RealtimeSessionSettings(model: model, silence: options.endSilence, builtinTools: environment.configuration.builtinTools)
        // `?intent=transcription` (OpenAI's URL for transcription sessions).
        self.settings.transcriptionOnly = transcriptionOnly
    }

    // MARK: - Lifetime

    /// Greets the client with the session's settings.
    func start() {
        send(.sessionCreated(.init(session: sessionJSON)))
        let work = lane.stream
        laneRunner = Task { [weak self] in
            for await piece in work { await self?.run(piece) }
        }
    }

    /// Ends the session: the reply in progress stops and what was heard of it is saved.
    func close() async {
        await endConversation()
        lane.continuation.finish()
        laneRunner?.cancel()
    }

    /// For a graceful shutdown: takes no more input, lets the reply in progress finish (for at
    /// most `limit`) and be saved, then closes the conversation.
    func drain(limit: Duration) async {
        protocolState.drain()
        try? carryOut(review.reset())  // a turn under review is not sent any more
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let state = await conversation?.session.state
            if protocolState.reply == nil, state != .thinking, state != .speaking { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await endConversation()
    }

    /// Handles one text frame from the client; a frame that cannot be acted on gets an
    /// `error` event.
    func receive(_ text: String) async {
        guard protocolState.phase == .serving else {
            sendError(Rules.shuttingDown, eventID: nil)
            return
        }
        let (parsed, eventID) = RealtimeClientEvent.parse(text)
        switch parsed {
        case .failure(let error):
            sendError(error, eventID: eventID)
        case .success(let event):
            do {
                try await handle(event, eventID: eventID)
            } catch {
                sendError(Self.serverError(error), eventID: eventID)
            }
        }
    }

    // MARK: - The audio lane

    /// Runs `work` on the session after the audio work before it, away from the reading of
    /// client events: speech that ends a turn is transcribed (and reviewed) inside
    /// `append`/`stopListening`, and a client reviewing the transcript must still be heard.
    /// Work queued for a conversation that has since ended is skipped; a failure is an
    /// `error` event naming the client's event.
    private func onAudioLane(
        _ session: ConversationSession<ContinuousClock>, eventID: String?, bytes: Int = 0,
        _ work: @escaping @Sendable (ConversationSession<ContinuousClock>) async throws -> Void
    ) async {
        // Back-pressure: a client far ahead of the conversation waits for it.
        while laneDepth >= Self.laneLimit, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
        laneDepth += 1
        protocolState.audioQueued(bytes)
        lane.continuation.yield(LaneWork(session: session, eventID: eventID, bytes: bytes, work: work))
    }

    private func run(_ piece: LaneWork) async {
        defer {
            laneDepth -= 1
            protocolState.audioHeard(piece.bytes)
        }
        guard conversation?.session === piece.session else { return }
        do {
            try await piece.work(piece.session)
        } catch {
            sendError(Self.serverError(error), eventID: piece.eventID)
        }
    }

    /// A commit found nothing to end (the session was not listening): why it is refused.
    private func commitFoundNothing() -> RealtimeProtocolError? {
        for case .reject(let error) in protocolState.update(.commitFoundNothing) { return error }
        return nil
    }

    /// Answers a binary frame: the protocol has none.
    func receiveBinary() {
        sendError(
            RealtimeProtocolError(
                code: "invalid_frame",
                message: "Binary frames are not part of the protocol: send JSON events as text frames, audio base64-encoded in input_audio_buffer.append."),
            eventID: nil)
    }

    // MARK: - Client events

    private func handle(_ event: RealtimeClientEvent, eventID: String?) async throws {
        switch event {
        case .updateSession(let session):
            var updated = settings
            try updated.apply(session)
            if conversation != nil, settings.needsNewConversation(for: updated) { await endConversation(keepingContext: true) }
            settings = updated
            send(.sessionUpdated(.init(session: sessionJSON)))
        case .appendAudio(let bytes):
            let audio: AudioBuffer
            if let codec = settings.inputCodec {
                audio = codec.decodeBuffer(bytes)
            } else {
                guard bytes.count % 2 == 0 else {
                    throw RealtimeProtocolError.invalidValue("audio", "'audio' holds an odd number of bytes: 16-bit PCM has two bytes per sample.")
                }
                guard let decoded = PCM16.decode(bytes, rate: settings.inputRate) else { return }
                audio = decoded
            }
            guard !audio.isEmpty else { return }
            let size = audio.samples.count * MemoryLayout<Float>.size
            let append = Rules.ClientEvent.appendAudio(
                hasConversation: conversation != nil, bytes: size,
                manualTurn: settings.turnDetection == .manual, at: .now)
            guard try proceed(append) else { return }
            let session = try await conversationSession()
            let echo = self.echo
            await onAudioLane(session, eventID: eventID, bytes: size) { session in
                try await session.listenUnlessAwaitingWakeWord()
                try await session.append(await echo?.clean(audio) ?? audio)
            }
        case .commitAudio:
            guard try proceed(.commitAudio(hasConversation: conversation != nil)), let session = conversation?.session else { return }
            await onAudioLane(session, eventID: eventID) { session in
                guard await session.state == .listening else {
                    if let refused = await self.commitFoundNothing() { throw refused }
                    return
                }
                try await session.stopListening()
            }
        case .clearAudio:
            if let session = conversation?.session {
                await onAudioLane(session, eventID: eventID) { session in
                    guard await session.state == .listening else { return }
                    try await session.stop()
                    try await self.listen(session)
                }
            }
            _ = try proceed(.clearAudio)
            send(.inputAudioBufferCleared)
        case .createMessage(let id, let role, let text, let images, let position):
            let session = try await conversationSession()
            let itemID = id ?? Self.id("item")
            guard items[itemID] == nil else {
                throw RealtimeProtocolError.invalidValue("item.id", "An item with id '\(itemID.prefix(64))' is already in the conversation.")
            }
            let kind = role == .user ? "input_text" : role == .assistant ? "output_text" : "input_text"
            var content: [RealtimeContentPart] = images.map { _ in .inputImage }
            if !text.isEmpty { content.insert(.text(kind: kind, text: text), at: 0) }
            let item = RealtimeItem.message(id: itemID, role: role.rawValue, status: "completed", content: content)
            let previous: String?
            let atEnd = position == .end || position == .after(lastItem ?? "")
            if role == .user, atEnd {
                // The next reply's question: sent (and saved) when the client asks for a response.
                _ = try proceed(.createQuestion(.init(itemID: itemID, text: text, images: images)))
                previous = lastItem
                lastItem = itemID
            } else {
                // Context the client gives (LiveKit's chat context, a bot's instructions): into
                // the conversation where the client put it, answered by no reply of its own.
                let message = ChatMessage(role: role, parts: images + (text.isEmpty ? [] : [.text(text)]))
                switch position {
                case .end:
                    try await session.insert(message)
                    previous = lastItem
                    lastItem = itemID
                case .start:
                    try await session.insert(message, at: 0)
                    previous = nil
                case .after(let anchor):
                    guard let known = items[anchor] else { throw Self.itemNotFound(anchor, param: "previous_item_id") }
                    let messages = await session.messages
                    let index = Self.index(of: known, in: messages).map { $0 + 1 } ?? messages.count
                    try await session.insert(message, at: index)
                    previous = anchor
                    if anchor == lastItem { lastItem = itemID }
                }
            }
            items[itemID] = KnownItem(item: item, role: role, text: text, isContext: !(role == .user && atEnd))
            send(.itemAdded(.init(previousItemID: previous, item: item)))
            send(.itemDone(.init(previousItemID: previous, item: item)))
        case .deleteItem(let id):
            guard let known = items[id] else { throw Self.itemNotFound(id, param: "item_id") }
            if protocolState.pending.contains(where: { $0.itemID == id }) {
                _ = try proceed(.deleteQuestion(itemID: id))
            } else if let session = conversation?.session, let index = Self.index(of: known, in: await session.messages) {
                try await session.removeMessage(at: index)
            }
            items[id] = nil
            if lastItem == id { lastItem = nil }
            send(.itemDeleted(.init(itemID: id)))
        case .retrieveItem(let id):
            guard let known = items[id] else { throw Self.itemNotFound(id, param: "item_id") }
            send(.itemRetrieved(.init(item: known.item)))
        case .createToolOutput(let id, let callID, let output):
            let session = try await conversationSession()
            do {
                try await session.addToolResult(callID: callID, output: output)
            } catch let error as ToolResultError {
                throw RealtimeProtocolError(code: "invalid_function_call_output", message: error.description, param: "item.call_id")
            }
            let itemID = id ?? Self.id("item")
            let item = RealtimeItem.functionCallOutput(id: itemID, callID: callID, output: output)
            send(.itemAdded(.init(previousItemID: lastItem, item: item)))
            send(.itemDone(.init(previousItemID: lastItem, item: item)))
            lastItem = itemID
            items[itemID] = KnownItem(item: item)
            _ = try proceed(.createToolOutput)
        case .truncateItem(let id, let end):
            send(.itemTruncated(.init(itemID: id, audioEndMs: end)))
            if protocolState.reply?.itemID == id, let session = conversation?.session, await session.state == .speaking {
                try await session.cancel()
            }
        case .createResponse(let parameters):
            if parameters.outOfBand {
                try await respondOutOfBand(parameters)
            } else {
                try await respond(parameters)
            }
        case .cancelResponse:
            let state = await conversation?.session.state
            let active = conversation != nil && (protocolState.reply != nil || state == .thinking || state == .speaking || state == .paused)
            guard try proceed(.cancelResponse(active: active)), let session = conversation?.session else { return }
            try? await session.cancel()
            if protocolState.reply != nil { finishResponse(status: "cancelled") }
        case .sendTranscript(let text):
            try decide(.send(text))
        case .discardTranscript:
            try decide(.discard)
        }
    }

    /// Carries out the client's decision on the transcript under review (or about to be).
    private func decide(_ decision: TranscriptReview.Decision) throws(RealtimeProtocolError) {
        switch protocolState.receive(.decideTranscript(decision)) {
        case .review(let decision, let transcribing): try carryOut(review.decide(decision, transcribing: transcribing))
        case .reject(let error): throw error
        default: break
        }
    }

    /// Asks the protocol about `event`: `true` to carry it out, `false` to drop it quietly.
    /// - Throws: the protocol's refusal.
    private func proceed(_ event: Rules.ClientEvent) throws(RealtimeProtocolError) -> Bool {
        switch protocolState.receive(event) {
        case .reject(let error): throw error
        case .ignore: return false
        case .proceed, .stopListening, .review, .respond: return true
        }
    }

    /// The conversation's review of a final transcript: `heard` as it is when the client
    /// reviews nothing (`create_response` true), else the client's decision, awaited.
    private func reviewTranscript(_ heard: String) async -> String? {
        // A transcription session answers nothing: the transcript was sent, the turn ends.
        if settings.transcriptionOnly { return nil }
        guard !settings.answersTurns else { return heard }
        return await withCheckedContinuation { continuation in
            try? carryOut(review.hold(heard, continuation))
        }
    }

    private func carryOut(_ action: TranscriptReview.Action) throws(RealtimeProtocolError) {
        switch action {
        case .none:
            break
        case .resume(let continuation, let text, let deleted):
            continuation.resume(returning: text)
            if let deleted { send(.itemDeleted(.init(itemID: deleted))) }
        case .deleted(let item):
            send(.itemDeleted(.init(itemID: item)))
        case .nothingToReview:
            throw RealtimeProtocolError(
                code: "no_transcript_to_review",
                message:
                    "No transcript awaits review: with turn_detection.create_response false, speak, wait for conversation.item.input_audio_transcription.completed, then send it."
            )
        }
    }

    /// `response.create`: answers the typed messages, lets a committed turn's reply stand, or
    /// answers the conversation as it stands (the assistant speaks first).
    private func respond(_ parameters: RealtimeClientEvent.ResponseParameters) async throws {
        let context = Rules.ResponseContext(
            transcriptionOnly: settings.transcriptionOnly, answersTurns: settings.answersTurns,
            reviewing: review.isActive,
            state: await conversation?.session.state ?? .idle)
        let plan: Rules.ResponsePlan
        switch protocolState.receive(.createResponse(context)) {
        case .respond(let chosen): plan = chosen
        case .reject(let error): throw error
        case .proceed, .ignore, .stopListening, .review: return
        }
        nextResponse = parameters
        let instructions = parameters.instructions
        switch plan {
        case .sendHeldTranscript:
            // OpenAI's way to answer a turn when turn_detection.create_response is false.
            try carryOut(review.decide(.send(nil), transcribing: protocolState.transcribing))
        case .alreadyAnswered:
            break
        case .answerToolOutputs:
            let session = try await conversationSession()
            ensureResponse()
            Task {
                do {
                    try await session.respondToToolResults()
                } catch {
                    self.typedTurnFailed(error)
                }
            }
        case .answerConversation:
            // Nothing new: the reply answers the conversation as it stands.
            let session = try await conversationSession()
            ensureResponse()
            Task {
                do {
                    try await session.respond(instructions: instructions)
                } catch {
                    self.typedTurnFailed(error)
                }
            }
        case .answerQuestions(let messages):
            let session = try await conversationSession()
            let text = messages.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n")
            let images = messages.flatMap(\.images)
            ensureResponse()
            // The reply is followed through the session's updates; this task only reports failure.
            Task {
                do {
                    try await session.send(text: text.isEmpty ? "Describe the image." : text, images: images, instructions: instructions)
                } catch {
                    self.typedTurnFailed(error)
                }
            }
        }
    }

    private func typedTurnFailed(_ error: any Error) {
        if protocolState.reply != nil { finishResponse(status: "failed") }
        sendError(Self.serverError(error), eventID: nil)
    }

    // MARK: - The conversation

    /// The session, made on first use.
    private func conversationSession() async throws -> ConversationSession<ContinuousClock> {
        if let conversation { return conversation.session }
        var options = self.options
        options.languageModel = ModelResolution.selection(for: settings.model, capability: .languageModel, catalog: environment.runtime.catalog)
        options.systemPrompt = settings.instructions
        options.maxTokens = settings.maxOutputTokens
        options.voice = settings.engineVoice
        // A transcription session sends partial transcripts unless the client chose otherwise.
        options.partialInterval = settings.partialInterval ?? (settings.transcriptionOnly && !settings.partialIntervalSet ? 1.0 : nil)
        options.speechThreshold = settings.speechThreshold.map { Float($0) }
        options.speechPadding = settings.speechPadding
        options.transcription = settings.transcription
        options.language = languageSetting
        if settings.transcriptionOnly {
            // Nothing is answered: no reply is prepared while the user speaks.
            options.prefillsPrompt = false
            options.startsReplyEarly = false
        }
        options.clientTools = settings.tools
        options.toolChoice = settings.toolChoice
        if settings.builtinTools, environment.configuration.builtinTools {
            // The client's own tool of the same name wins: its calls go to the client.
            var builtIns = try await environment.runtime.toolbox(owner: options.owner)
            for tool in settings.tools { builtIns.remove(named: tool.name) }
            options.tools = builtIns.isEmpty ? nil : builtIns
        }
        options.reviewTranscript = { [weak self] heard in
            guard let self else { return heard }
            return await self.reviewTranscript(heard)  // nil drops the turn
        }
        options.startsListening = false
        options.allowsBargeIn = settings.interruptsResponse
        options.interruption = settings.interruption
        switch settings.turnDetection {
        case .serverVAD(let silence):
            options.endSilence = silence
        case .semanticVAD(let eagerness):
            options.endSilence = eagerness.longSilence
            options.shortSilence = eagerness.shortSilence
        case .manual:
            // Turns end on commit; a long pause does not end one.
            options.endSilence = options.maxTurn
        }
        options.wakeWord = settings.wakeWord
        echo = settings.echoCancellation ? RealtimeEcho(engine: settings.echoEngine, logger: logger) : nil
        let output = RealtimeOutput(echo: echo) { [weak self] chunk in await self?.replyAudio(chunk) }
        let made: RuntimeConversation<ContinuousClock>
        do {
            made = try await environment.runtime.makeConversation(options: options, thread: thread, output: output)
        } catch {
            let failure = Self.serverError(error)
            protocolState.conversationUnavailable(failure, at: .now)
            throw failure
        }
        protocolState.conversationMade()
        conversation = made
        if let carried = carriedMessages {
            carriedMessages = nil
            try await restoreContext(carried, into: made.session)
        }
        let (updates, before) = await made.session.countedUpdates()
        followedUpdates = before
        followGeneration += 1
        let generation = followGeneration
        following = Task { [weak self] in
            for await update in updates { await self?.follow(update, generation: generation) }
            await self?.stoppedFollowing(generation: generation)
        }
        try await listen(made.session)
        return made.session
    }

    /// Puts the client's context (system, assistant and user items it placed, which no saved
    /// thread holds) of the conversation before, `carried`, into the new conversation `session`
    /// where it was among the saved messages: a session.update that makes a new conversation
    /// loses none of it.
    private func restoreContext(_ carried: [ChatMessage], into session: ConversationSession<ContinuousClock>) async throws {
        let context = items.values.filter(\.isContext)
        guard !context.isEmpty else { return }
        let saved = await session.messages
        var next = 0  // the next saved message to find among the carried ones
        var placed = 0  // how many messages the new conversation holds before the next one
        for message in carried {
            if next < saved.count, saved[next].role == message.role, Self.sameMessage(saved[next], role: message.role, text: message.text) {
                next += 1
                placed += 1
            } else if message.role != .tool, context.contains(where: { $0.matches(message) }) {
                try await session.insert(message, at: placed)
                placed += 1
            }
        }
    }

    /// Whether `message` has `role` and `text` (spaces at the ends aside).
    static func sameMessage(_ message: ChatMessage, role: ChatMessage.Role, text: String) -> Bool {
        message.role == role && message.text.trimmingCharacters(in: .whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Opens the gates and listens.
    private func listen(_ session: ConversationSession<ContinuousClock>) async throws {
        for gate in ConversationGate.allCases { try await session.setGate(gate, open: true) }
        if await session.state == .idle { try await session.arm() }
        try await session.listenUnlessAwaitingWakeWord()
    }

    /// Closes the conversation (saving what was heard of a reply in progress) and remembers
    /// its thread for the next one.
    private func endConversation(keepingContext: Bool = false) async {
        guard let conversation else { return }
        self.conversation = nil
        // The client's context is in no saved thread: the next conversation is given it.
        if keepingContext { carriedMessages = await conversation.session.messages }
        // A transcript under review is dropped, so that the conversation can close.
        try? carryOut(review.reset())
        await conversation.session.close()
        await conversation.prepared()
        await following?.value
        following = nil
        if let saved = await conversation.thread { thread = saved }
        if protocolState.reply != nil { finishResponse(status: "cancelled") }
    }

    /// Turns what the conversation reports into server events.
    private func follow(_ update: ConversationUpdate, generation: Int) async {
        // Counted as taken up before it is handled: what waits for it is resumed after this
        // update's events are sent (they are sent before this method's first wait), and a
        // reply waiting for it never holds up an update that waits for the reply (a reset).
        if generation == followGeneration {
            followedUpdates += 1
            resumeFollowWaiters()
        }
        switch update {
        case .speechStarted(let at):
            carryOut(protocolState.update(.speechStarted(itemID: Self.id("item"))), at: at)
        case .speechStopped(let at):
            carryOut(protocolState.update(.speechStopped(itemID: Self.id("item"))), at: at)
        case .replyResumed:
            carryOut(protocolState.update(.replyResumed))
        case .replyInterrupted:
            carryOut(protocolState.update(.replyInterrupted))
            if protocolState.conversationState == .thinking, !admitReply() {
                if let session = conversation?.session { Task { try? await session.cancel() } }
            }
        case .partialTranscript(let text):
            carryOut(protocolState.update(.partialTranscript(text)))
        case .finalTranscript(let text):
            // Asked to detect the language: the one heard goes with the transcript.
            heardLanguage = languageSetting == .auto ? await conversation?.session.heardLanguage : nil
            let cutsReply =
                !settings.answersTurns && settings.interruption.map { !$0.backchannels.contains(text, language: settings.transcription?.language) } == true
            carryOut(protocolState.update(.finalTranscript(text, cutsReply: cutsReply)))
        case .transition(let from, let to):
            carryOut(protocolState.update(.transition(from: from, to: to)))
            // A paused reply that goes on is no new reply; one that is cut is admitted with
            // `replyInterrupted`.
            if to == .thinking, from != .speaking, from != .paused, !admitReply() {
                // Over the key's limit: this reply is not written (the error says when to retry).
                if let session = conversation?.session { Task { try? await session.cancel() } }
            }
            if case .error(let reason) = to { await failed(reason) }
        case .replyText(let piece):
            ensureResponse()
            if let response = protocolState.replyText(piece) {
                let delta = RealtimeServerEvent.Delta(response.content, delta: piece)
                send(response.textOnly ? .outputTextDelta(delta) : .outputAudioTranscriptDelta(delta))
            }
        case .turn(let turn):
            let thread = await conversation?.thread ?? self.thread
            guard !turn.isTyped || protocolState.reply != nil || !turn.reply.isEmpty else { return }
            ensureResponse()
            finishResponse(
                status: turn.interrupted ? "cancelled" : "completed", transcript: turn.reply, usage: turn.usage,
                parley: Self.parleyTurn(turn, thread: thread), calls: turn.toolCalls)
            carryOut(protocolState.update(.turnEnded))
        case .rejected, .audioLevel:
            break
        }
    }

    /// Carries out what the protocol says follows from an update; `at` is the update's time
    /// (of speech started or stopped), in seconds.
    private func carryOut(_ consequences: [Rules.Consequence], at time: Double = 0) {
        for consequence in consequences {
            switch consequence {
            case .cutReply:
                if protocolState.reply != nil { finishResponse(status: "cancelled") }
            case .tellSpeechStarted(let item):
                send(.speechStarted(.init(audioStartMs: Self.milliseconds(time), itemID: item)))
            case .tellPaused(let item):
                send(.responsePaused(.init(responseID: protocolState.reply?.id, itemID: item)))
            case .tellSpeechStopped(let item):
                send(.speechStopped(.init(audioEndMs: Self.milliseconds(time), itemID: item)))
            case .commitSpeech(let item):
                send(.inputAudioBufferCommitted(.init(previousItemID: lastItem, itemID: item)))
                let spoken = RealtimeItem.message(id: item, role: "user", status: "completed", content: [.audio(kind: "input_audio", transcript: nil)])
                send(.itemAdded(.init(previousItemID: lastItem, item: spoken)))
                lastItem = item
            case .tellResumed(let item, let transcript):
                send(.responseResumed(.init(itemID: item, transcript: transcript, responseID: protocolState.reply?.id)))
            case .tellPartial(let item, let delta, let transcript):
                // A partial that is not an extension of the last one cannot be told as a delta:
                // the whole partial transcript goes beside it (a Parley extension).
                send(.transcriptionDelta(.init(itemID: item, delta: delta, parley: .init(transcript: transcript))))
            case .tellTranscript(let item, let text):
                send(.transcriptionCompleted(.init(itemID: item, transcript: text, parley: heardLanguage.map { .init(language: $0) })))
                let spoken = RealtimeItem.message(id: item, role: "user", status: "completed", content: [.audio(kind: "input_audio", transcript: text)])
                send(.itemDone(.init(item: spoken)))
                items[item] = KnownItem(item: spoken, role: .user, text: text)
                // Held for the client's review: it answers with response.create or parley.transcript.send/discard.
                if !text.isEmpty, !settings.answersTurns, !settings.transcriptionOnly { try? carryOut(review.announce(item)) }
            case .forgetEarlyDecision:
                review.forgetEarlyDecision()
            case .reject(let error):
                sendError(error, eventID: nil)
            }
        }
    }

    /// The conversation failed (a provider, or the store): the response in progress fails, the
    /// client hears why, and the conversation listens again.
    private func failed(_ reason: String) async {
        if protocolState.reply != nil { finishResponse(status: "failed") }
        _ = protocolState.update(.failed)
        sendError(RealtimeProtocolError(type: "server_error", code: "conversation_failed", message: reason), eventID: nil)
        guard let session = conversation?.session else { return }
        do {
            try await session.reset()
            try await listen(session)
        } catch {
            logger.warning("realtime: could not listen again after a failure: \(error)")
        }
    }

    // MARK: - Responses

    /// A chunk of the reply, sent once every update broadcast before it was played has been
    /// told (the turn's end, its transcript): audio comes from the reply's own task, updates
    /// through the follower, and a busy machine must not put `response.created` before
    /// `input_audio_buffer.speech_stopped`. A chunk of a reply cut short while it waited is
    /// dropped.
    private func replyAudio(_ chunk: AudioBuffer) async {
        if let session = conversation?.session {
            await followed(upTo: await session.updatesBroadcast)
            if Task.isCancelled { return }
        }
        ensureResponse()
        guard let response = protocolState.reply, !response.textOnly else { return }
        let bytes = settings.outputCodec.map { $0.encode(chunk) } ?? PCM16.encode(chunk, rate: settings.outputRate)
        send(.outputAudioDelta(.init(response.content, delta: Data(bytes).base64EncodedString())))
    }

    /// Waits until the follower has taken up `needed` updates (or stopped), or the task is
    /// cancelled.
    private func followed(upTo needed: Int) async {
        guard followedUpdates < needed else { return }
        lastFollowWaiter += 1
        let id = lastFollowWaiter
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || followedUpdates >= needed {
                    continuation.resume()
                } else {
                    followWaiters[id] = (needed, continuation)
                }
            }
        } onCancel: {
            Task { await self.releaseFollowWaiter(id) }
        }
    }

    private func resumeFollowWaiters() {
        for (id, waiter) in followWaiters where waiter.needed <= followedUpdates {
            followWaiters[id] = nil
            waiter.continuation.resume()
        }
    }

    private func releaseFollowWaiter(_ id: Int) {
        followWaiters.removeValue(forKey: id)?.continuation.resume()
    }

    /// A session's updates ended (it closed): the chunks of its replies wait no more.
    private func stoppedFollowing(generation: Int) {
        guard generation == followGeneration else {
            for waiter in followWaiters.values { waiter.continuation.resume() }
            followWaiters.removeAll()
            return
        }
        followedUpdates = .max
        resumeFollowWaiters()
    }

    private func ensureResponse() {
        guard protocolState.reply == nil else { return }
        let parameters = nextResponse
        nextResponse = .init()
        let opened = RealtimeReply(
            id: Self.id("resp"), itemID: Self.id("item"), textOnly: parameters.textOnly ?? settings.textOnly,
            metadata: parameters.metadata)
        protocolState.openReply(opened)
        send(.responseCreated(.init(response: responseBody(opened, status: "in_progress", output: []))))
        let item = RealtimeItem.message(id: opened.itemID, role: "assistant", status: "in_progress", content: [])
        send(.outputItemAdded(.init(responseID: opened.id, outputIndex: 0, item: item)))
        send(.itemAdded(.init(previousItemID: lastItem, item: item)))
        send(.contentPartAdded(.init(opened.content, part: .reply("", textOnly: opened.textOnly))))
        lastItem = opened.itemID
    }

    private func finishResponse(
        status: String, transcript: String? = nil, usage: Usage? = nil, parley: RealtimeResponse.ParleyTurn? = nil,
        calls: [ToolCall] = []
    ) {
        guard let open = protocolState.closeReply() else { return }
        let text = transcript ?? open.text
        if open.textOnly {
            send(.outputTextDone(.init(open.content, text: text)))
        } else {
            send(.outputAudioDone(open.content))
            send(.outputAudioTranscriptDone(.init(open.content, transcript: text)))
        }
        send(.contentPartDone(.init(open.content, part: .reply(text, textOnly: open.textOnly))))
        let item = RealtimeItem.message(
            id: open.itemID, role: "assistant", status: status == "completed" ? "completed" : "incomplete",
            content: [.reply(text, textOnly: open.textOnly, output: true)])
        send(.outputItemDone(.init(responseID: open.id, outputIndex: 0, item: item)))
        send(.itemDone(.init(item: item)))
        lastItem = open.itemID
        items[open.itemID] = KnownItem(item: item, role: .assistant, text: text)
        // The tools the model called, for the client to run: a function_call item each.
        var output = [item]
        for (offset, call) in calls.enumerated() {
            let itemID = Self.id("item")
            let index = offset + 1
            let started = RealtimeItem.functionCall(id: itemID, status: "in_progress", name: call.name, callID: call.id, arguments: "")
            send(.outputItemAdded(.init(responseID: open.id, outputIndex: index, item: started)))
            send(.itemAdded(.init(previousItemID: lastItem, item: started)))
            send(.functionCallArgumentsDelta(.init(responseID: open.id, itemID: itemID, outputIndex: index, callID: call.id, delta: call.arguments)))
            send(
                .functionCallArgumentsDone(
                    .init(
                        responseID: open.id, itemID: itemID, outputIndex: index, callID: call.id, name: call.name,
                        arguments: call.arguments)))
            let done = RealtimeItem.functionCall(id: itemID, status: "completed", name: call.name, callID: call.id, arguments: call.arguments)
            send(.outputItemDone(.init(responseID: open.id, outputIndex: index, item: done)))
            send(.itemDone(.init(item: done)))
            lastItem = itemID
            items[itemID] = KnownItem(item: done)
            output.append(done)
        }
        var done = responseBody(open, status: status, output: output)
        done.usage = usage.map(RealtimeResponse.Usage.init)
        done.parley = parley
        send(.responseDone(.init(response: done)))
        charge(usage)
    }

    /// Takes one request from the key's limit for a reply about to be written, as every HTTP
    /// request is (``Admission``): `false`, with an `error` event saying when to retry, when the
    /// limit is reached.
    private func admitReply() -> Bool {
        guard environment.admission.limits.isOn else { return true }
        if case .failure(let refused) = environment.admission.take(options.owner) {
            sendError(RealtimeProtocolError(code: refused.error.code ?? "rate_limit_exceeded", message: refused.error.message), eventID: nil)
            return false
        }
        return true
    }

    /// Charges a reply's tokens to the key, and tells the client its limits.
    private func charge(_ usage: Usage?) {
        let admission = environment.admission
        guard admission.limits.isOn else { return }
        if let usage { admission.charge(options.owner, usage: usage) }
        send(.rateLimitsUpdated(.init(rateLimits: admission.limits.realtimeEntries(options.owner))))
    }

    /// An out-of-band response (`conversation: "none"`): the language model answers the
    /// conversation (or the response's own `input`) in text, with the response's instructions,
    /// and nothing of it enters the conversation; its events carry the client's metadata.
    private func respondOutOfBand(_ parameters: RealtimeClientEvent.ResponseParameters) async throws {
        let history: [ChatMessage]
        if let input = parameters.input {
            history = input
        } else {
            history = await conversation?.session.messages ?? []
        }
        let pendingMessages = parameters.input == nil ? protocolState.pending.map { ChatMessage(role: .user, parts: $0.images + [.text($0.text)]) } : []
        let system = parameters.instructions ?? settings.instructions ?? "You are a helpful assistant."
        let messages = [ChatMessage.system(system)] + history + pendingMessages
        guard messages.count > 1 else {
            throw RealtimeProtocolError(
                code: "no_input",
                message: "An out-of-band response needs something to answer: give it 'input' items, or add messages to the conversation first.")
        }
        let selection = ModelResolution.selection(for: settings.model, capability: .languageModel, catalog: environment.runtime.catalog)
        var sampling = SamplingOptions()
        if let limit = settings.maxOutputTokens { sampling.maxTokens = limit }
        let request = ChatRequest(messages: messages, sampling: sampling)
        let llm = try await environment.languageModel(for: request, selection: selection, param: "response.input")
        guard admitReply() else { return }
        let open = RealtimeReply(id: Self.id("resp"), itemID: Self.id("item"), textOnly: true, metadata: parameters.metadata)
        var created = responseBody(open, status: "in_progress", output: [])
        created.conversationID = nil
        send(.responseCreated(.init(response: created)))
        let item = { (status: String, text: String?) -> RealtimeItem in
            .message(id: open.itemID, role: "assistant", status: status, content: text.map { [.text(kind: "output_text", text: $0)] } ?? [])
        }
        send(.outputItemAdded(.init(responseID: open.id, outputIndex: 0, item: item("in_progress", nil))))
        var text = ""
        var usage = Usage()
        var status = "completed"
        do {
            for try await event in llm.complete(request) {
                switch event {
                case .text(let piece):
                    text += piece
                    send(.outputTextDelta(.init(open.content, delta: piece)))
                case .finished(_, let used):
                    usage = used
                default:
                    break
                }
            }
        } catch {
            status = "failed"
            sendError(Self.serverError(error), eventID: nil)
        }
        send(.outputTextDone(.init(open.content, text: text)))
        let done = item(status == "completed" ? "completed" : "incomplete", text)
        send(.outputItemDone(.init(responseID: open.id, outputIndex: 0, item: done)))
        var finished = responseBody(open, status: status, output: [done])
        finished.conversationID = nil
        finished.usage = RealtimeResponse.Usage(usage)
        send(.responseDone(.init(response: finished)))
        charge(usage)
    }

    /// The position among `messages` of the message `item` stands for (the last with its
    /// role and text), if it is there.
    private static func index(of item: KnownItem, in messages: [ChatMessage]) -> Int? {
        messages.lastIndex { item.matches($0) }
    }

    private static func itemNotFound(_ id: String, param: String) -> RealtimeProtocolError {
        RealtimeProtocolError(code: "item_not_found", message: "No item with id '\(id.prefix(64))' is in this conversation.", param: param)
    }

    /// What `response.done` tells beside OpenAI's fields (a Parley extension, in an object of
    /// its own): the saved thread, who answered, how long each stage took, and (with
    /// `semantic_vad`) why the turn ended and whether the reply was started during the pause.
    private static func parleyTurn(_ turn: TurnResult, thread: Int64?) -> RealtimeResponse.ParleyTurn {
        RealtimeResponse.ParleyTurn(
            threadID: thread, providers: encoded(turn.providers), latencyMs: encoded(turn.latency), timingsMs: encoded(turn.timings),
            interrupted: turn.interrupted, endOfTurn: turn.endOfTurn, replyStartedEarly: turn.startedEarly,
            tools: turn.toolResults.map { result in
                .init(
                    name: result.call.name, arguments: result.call.arguments, output: result.content, isError: result.isError,
                    ms: result.milliseconds.rounded())
            })
    }

    /// `value` as JSON with its own key spellings (Foundation's encoder).
    private static func encoded(_ value: some Encodable) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .null }
        return json
    }

    private func responseBody(_ response: RealtimeReply, status: String, output: [RealtimeItem]) -> RealtimeResponse {
        RealtimeResponse(
            id: response.id, status: status, output: output, outputModalities: [response.textOnly ? "text" : "audio"],
            conversationID: sessionID, metadata: response.metadata)
    }

    private var sessionJSON: JSONValue {
        settings.json(id: sessionID, transcriptionModel: "auto")
    }

    // MARK: - Sending

    private func send(_ event: RealtimeServerEvent) {
        guard !beta || event.betaType != nil else { return }
        lastEvent += 1
        guard let text = event.text(eventID: "event_\(sessionID.dropFirst(5))_\(lastEvent)", beta: beta) else { return }
        emit(text)
    }

    private func sendError(_ error: RealtimeProtocolError, eventID: String?) {
        logger.debug("realtime: \(error.code): \(error.message)")
        send(.error(.init(error, eventID: eventID)))
    }

    /// A failure of the server's or a provider's, in the protocol's terms.
    private static func serverError(_ error: any Error) -> RealtimeProtocolError {
        if let error = error as? RealtimeProtocolError { return error }
        if let error = error as? OpenAIError {
            return RealtimeProtocolError(type: error.type, code: error.code ?? "server_error", message: error.message, param: error.param)
        }
        return RealtimeProtocolError(type: "server_error", code: "server_error", message: "\(error)")
    }

    /// `seconds` in whole milliseconds (0 for a time that is not a number).
    private static func milliseconds(_ seconds: Double) -> Int {
        let milliseconds = (seconds * 1_000).rounded()
        return milliseconds.isFinite && abs(milliseconds) < 1e15 ? Int(milliseconds) : 0
    }

    /// A fresh id with OpenAI's prefix style (`item_…`, `resp_…`, `sess_…`).
    static func id(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased()
    }
}
