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
    /// A reply being sent.
    struct OpenResponse {
        var id: String
        var itemID: String
        var text = ""
        /// Whether this reply is sent as text only (the session's choice, or the response's).
        var textOnly = false
        /// The client's metadata of `response.create`, echoed.
        var metadata: JSONValue?
    }

    /// An item of the conversation as the client knows it, for `conversation.item.retrieve`
    /// and `.delete`: its JSON, and for a message its role and text (how it is found among
    /// the conversation's messages).
    struct KnownItem {
        var json: JSONValue
        var role: ChatMessage.Role?
        var text: String?
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

    private var lastEvent = 0
    /// The user message being spoken or transcribed.
    private var userItem: String?
    /// Speech over a paused response, held back until it proves an interruption: whether there
    /// is such speech, when it stopped (its commit not yet sent) and its final transcript.
    private var speechOverResponse = false
    /// The conversation's state as last reported.
    private var lastState: ConversationState = .idle
    private var heldStop: Double?
    private var heldTranscript: String?
    private var awaitingTranscript = false
    private var partial = ""
    /// The last item of the conversation (`previous_item_id`).
    private var lastItem: String?
    private var response: OpenResponse?
    /// Typed messages waiting for `response.create`, with their item ids.
    private var pending: [(id: String, text: String, images: [ChatMessage.Part])] = []
    /// The conversation's items by id (messages, replies, tool calls and outputs).
    private var items: [String: KnownItem] = [:]
    /// What the next reply is sent with (`response.create`'s parameters).
    private var nextResponse = RealtimeClientEvent.ResponseParameters()
    /// Whether tool outputs came since the last response (`response.create` answers them).
    private var toolOutputsPending = false
    /// Whether `input_audio_buffer.commit` asked to end a turn that has not ended yet.
    private var committing = false
    /// Whether a committed turn's reply answers the next `response.create` too.
    private var answeredByCommit = false
    /// Audio work (appends, commits, clears) in the order the client sent it; see
    /// ``onAudioLane(_:eventID:_:)``.
    private let lane = AsyncStream.makeStream(of: LaneWork.self)
    private var laneRunner: Task<Void, Never>?
    /// How many pieces of audio work are queued or running.
    private var laneDepth = 0
    /// The most audio work queued before the reading of client events waits (about 20 s of
    /// 100 ms appends).
    private static let laneLimit = 200
    /// The audio of a manual turn (`turn_detection: null`) appended since its last commit or
    /// clear, in bytes (at most ``ServerConfiguration/maxRealtimeQueuedAudioBytes``).
    private var heldBytes = 0
    /// The audio queued or running, in bytes (at most
    /// ``ServerConfiguration/maxRealtimeQueuedAudioBytes``: past it an append is refused).
    private var laneBytes = 0

    /// Whether the server is shutting down: no more input is taken.
    private var draining = false
    /// Why the conversation could not be made, until when audio is dropped without saying so
    /// again (one error event, not one per audio frame).
    private var unavailable: (error: RealtimeProtocolError, until: ContinuousClock.Instant)?
    /// The final transcript the conversation waits on while the client reviews it
    /// (`create_response: false`), with the user item it belongs to.
    private var review = TranscriptReview()

    /// Creates a connection on `environment`'s runtime; `model` is the `model` query item,
    /// `thread` a saved thread to continue (a Parley extension), `options` what the
    /// conversation is made with (its owner among them).
    init(environment: ServerEnvironment, model: String, thread: Int64?, options: ConversationOptions, beta: Bool,
         transcriptionOnly: Bool = false, logger: Logger, emit: @escaping @Sendable (String) -> Void) {
        self.environment = environment
        self.logger = logger
        self.beta = beta
        self.emit = emit
        self.thread = thread
        self.options = options
        self.settings = RealtimeSessionSettings(model: model, silence: options.endSilence, builtinTools: environment.configuration.builtinTools)
        // `?intent=transcription` (OpenAI's URL for transcription sessions).
        self.settings.transcriptionOnly = transcriptionOnly
    }

    // MARK: - Lifetime

    /// Greets the client with the session's settings.
    func start() {
        send("session.created", ["session": sessionJSON])
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
        draining = true
        try? carryOut(review.reset())  // a turn under review is not sent any more
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let state = await conversation?.session.state
            if response == nil, state != .thinking, state != .speaking { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await endConversation()
    }

    /// Handles one text frame from the client; a frame that cannot be acted on gets an
    /// `error` event.
    func receive(_ text: String) async {
        guard !draining else {
            sendError(RealtimeProtocolError(type: "server_error", code: "server_shutting_down", message: "The server is shutting down: reconnect to continue (the thread is saved)."), eventID: nil)
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
    private func onAudioLane(_ session: ConversationSession<ContinuousClock>, eventID: String?, bytes: Int = 0,
                             _ work: @escaping @Sendable (ConversationSession<ContinuousClock>) async throws -> Void) async {
        // Back-pressure: a client far ahead of the conversation waits for it.
        while laneDepth >= Self.laneLimit, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
        laneDepth += 1
        laneBytes += bytes
        lane.continuation.yield(LaneWork(session: session, eventID: eventID, bytes: bytes, work: work))
    }

    private func run(_ piece: LaneWork) async {
        defer {
            laneDepth -= 1
            laneBytes -= piece.bytes
        }
        guard conversation?.session === piece.session else { return }
        do {
            try await piece.work(piece.session)
        } catch {
            sendError(Self.serverError(error), eventID: piece.eventID)
        }
    }

    /// A commit found nothing to end: the session was not listening.
    private func commitRefused() {
        committing = false
        answeredByCommit = false
    }

    /// Answers a binary frame: the protocol has none.
    func receiveBinary() {
        sendError(RealtimeProtocolError(code: "invalid_frame", message: "Binary frames are not part of the protocol: send JSON events as text frames, audio base64-encoded in input_audio_buffer.append."), eventID: nil)
    }

    // MARK: - Client events

    private func handle(_ event: RealtimeClientEvent, eventID: String?) async throws {
        switch event {
        case .updateSession(let session):
            var updated = settings
            try updated.apply(session)
            if conversation != nil, settings.needsNewConversation(for: updated) { await endConversation() }
            settings = updated
            send("session.updated", ["session": sessionJSON])
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
            guard laneBytes + size <= environment.configuration.maxRealtimeQueuedAudioBytes else {
                throw RealtimeProtocolError(code: "input_audio_buffer_full",
                                            message: "This audio was dropped: the server holds \(laneBytes >> 20) MB of audio not yet heard. Send audio no faster than it is spoken, and append again once it catches up.")
            }
            // A turn the client ends itself holds all its audio until the commit: as much as
            // the queue may hold, and no more.
            if settings.turnDetection == .manual {
                guard heldBytes + size <= environment.configuration.maxRealtimeQueuedAudioBytes else {
                    throw RealtimeProtocolError(code: "input_audio_buffer_full",
                                                message: "This audio was dropped: the turn holds \(heldBytes >> 20) MB of audio. Commit it (input_audio_buffer.commit) or clear it before appending more.")
                }
                heldBytes += size
            }
            if let unavailable, ContinuousClock.now < unavailable.until, conversation == nil { return }
            let session = try await conversationSession()
            let echo = self.echo
            await onAudioLane(session, eventID: eventID, bytes: size) { session in
                if await session.state == .armed { try await session.startListening(.user) }
                try await session.append(await echo?.clean(audio) ?? audio)
            }
        case .commitAudio:
            heldBytes = 0
            let empty = RealtimeProtocolError(code: "input_audio_buffer_commit_empty", message: "There is no audio to commit: append speech with input_audio_buffer.append first.")
            guard let session = conversation?.session else { throw empty }
            committing = true
            answeredByCommit = true
            await onAudioLane(session, eventID: eventID) { session in
                guard await session.state == .listening else {
                    await self.commitRefused()
                    throw empty
                }
                try await session.stopListening()
            }
        case .clearAudio:
            heldBytes = 0
            if let session = conversation?.session {
                await onAudioLane(session, eventID: eventID) { session in
                    guard await session.state == .listening else { return }
                    try await session.stop()
                    try await self.listen(session)
                }
            }
            userItem = nil
            send("input_audio_buffer.cleared", [:])
        case .createMessage(let id, let role, let text, let images, let position):
            let session = try await conversationSession()
            let itemID = id ?? Self.id("item")
            guard items[itemID] == nil else {
                throw RealtimeProtocolError.invalidValue("item.id", "An item with id '\(itemID.prefix(64))' is already in the conversation.")
            }
            let kind = role == .user ? "input_text" : role == .assistant ? "output_text" : "input_text"
            var content: [JSONValue] = images.map { _ in .object(["type": .string("input_image")]) }
            if !text.isEmpty { content.insert(.object(["type": .string(kind), "text": .string(text)]), at: 0) }
            let item = Self.item(itemID, role: role.rawValue, status: "completed", content: content)
            let previous: String?
            let atEnd = position == .end || position == .after(lastItem ?? "")
            if role == .user, atEnd {
                // The next reply's question: sent (and saved) when the client asks for a response.
                pending.append((itemID, text, images))
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
            items[itemID] = KnownItem(json: item, role: role, text: text)
            send("conversation.item.added", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
            send("conversation.item.done", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
        case .deleteItem(let id):
            guard let known = items[id] else { throw Self.itemNotFound(id, param: "item_id") }
            if let index = pending.firstIndex(where: { $0.id == id }) {
                pending.remove(at: index)
            } else if let session = conversation?.session, let index = Self.index(of: known, in: await session.messages) {
                try await session.removeMessage(at: index)
            }
            items[id] = nil
            if lastItem == id { lastItem = nil }
            send("conversation.item.deleted", ["item_id": .string(id)])
        case .retrieveItem(let id):
            guard let known = items[id] else { throw Self.itemNotFound(id, param: "item_id") }
            send("conversation.item.retrieved", ["item": known.json])
        case .createToolOutput(let id, let callID, let output):
            let session = try await conversationSession()
            do {
                try await session.addToolResult(callID: callID, output: output)
            } catch let error as ToolResultError {
                throw RealtimeProtocolError(code: "invalid_function_call_output", message: error.description, param: "item.call_id")
            }
            let itemID = id ?? Self.id("item")
            let item: JSONValue = ["id": .string(itemID), "object": "realtime.item", "type": "function_call_output", "call_id": .string(callID),
                                   "output": .string(output)]
            send("conversation.item.added", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item": item])
            send("conversation.item.done", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item": item])
            lastItem = itemID
            items[itemID] = KnownItem(json: item)
            toolOutputsPending = true
        case .truncateItem(let id, let end):
            send("conversation.item.truncated", ["item_id": .string(id), "content_index": .number(0), "audio_end_ms": .number(Double(end))])
            if response?.itemID == id, let session = conversation?.session, await session.state == .speaking {
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
            guard let session = conversation?.session, response != nil || state == .thinking || state == .speaking || state == .paused else {
                throw RealtimeProtocolError(code: "response_cancel_not_active", message: "There is no response in progress to cancel.")
            }
            try? await session.cancel()
            if response != nil { finishResponse(status: "cancelled") }
        case .sendTranscript(let text):
            try decide(.send(text))
        case .discardTranscript:
            try decide(.discard)
        }
    }

    /// Carries out the client's decision on the transcript under review (or about to be).
    private func decide(_ decision: TranscriptReview.Decision) throws(RealtimeProtocolError) {
        answeredByCommit = false
        try carryOut(review.decide(decision, transcribing: awaitingTranscript || committing))
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
            if let deleted { send("conversation.item.deleted", ["item_id": .string(deleted)]) }
        case .deleted(let item):
            send("conversation.item.deleted", ["item_id": .string(item)])
        case .nothingToReview:
            throw RealtimeProtocolError(code: "no_transcript_to_review", message: "No transcript awaits review: with turn_detection.create_response false, speak, wait for conversation.item.input_audio_transcription.completed, then send it.")
        }
    }

    /// `response.create`: answers the typed messages, lets a committed turn's reply stand, or
    /// answers the conversation as it stands (the assistant speaks first).
    private func respond(_ parameters: RealtimeClientEvent.ResponseParameters) async throws {
        guard !settings.transcriptionOnly else {
            throw RealtimeProtocolError(code: "transcription_session", message: "This is a transcription session: it transcribes speech and answers nothing. Set session.type to realtime for replies.")
        }
        nextResponse = parameters
        // A turn held for review (or about to be) is sent as heard: OpenAI's way to answer a
        // turn when turn_detection.create_response is false.
        if !settings.answersTurns, review.isActive || awaitingTranscript || committing {
            try decide(.send(nil))
            return
        }
        if pending.isEmpty, toolOutputsPending {
            let session = try await conversationSession()
            toolOutputsPending = false
            answeredByCommit = false
            ensureResponse()
            Task {
                do {
                    try await session.respondToToolResults()
                } catch {
                    self.typedTurnFailed(error)
                }
            }
            return
        }
        if pending.isEmpty, answeredByCommit || response != nil {
            answeredByCommit = false
            return
        }
        let session = try await conversationSession()
        let state = await session.state
        guard state == .idle || state == .armed || state == .listening else {
            throw RealtimeProtocolError(code: "conversation_already_has_active_response", message: "A response is in progress: wait for response.done, or send response.cancel first.")
        }
        guard !pending.isEmpty else {
            // Nothing new: the reply answers the conversation as it stands.
            answeredByCommit = false
            ensureResponse()
            let instructions = parameters.instructions
            Task {
                do {
                    try await session.respond(instructions: instructions)
                } catch {
                    self.typedTurnFailed(error)
                }
            }
            return
        }
        let messages = pending
        pending = []
        let text = messages.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n")
        let images = messages.flatMap(\.images)
        answeredByCommit = false
        ensureResponse()
        // The reply is followed through the session's updates; this task only reports failure.
        let instructions = parameters.instructions
        Task {
            do {
                try await session.send(text: text.isEmpty ? "Describe the image." : text, images: images, instructions: instructions)
            } catch {
                self.typedTurnFailed(error)
            }
        }
    }

    private func typedTurnFailed(_ error: any Error) {
        if response != nil { finishResponse(status: "failed") }
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
        echo = settings.echoCancellation ? RealtimeEcho(logger: logger) : nil
        let output = RealtimeOutput(echo: echo) { [weak self] chunk in await self?.replyAudio(chunk) }
        let made: RuntimeConversation<ContinuousClock>
        do {
            made = try await environment.runtime.makeConversation(options: options, thread: thread, output: output)
        } catch {
            let failure = Self.serverError(error)
            unavailable = (failure, ContinuousClock.now + .seconds(5))
            throw failure
        }
        unavailable = nil
        conversation = made
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

    /// Opens the gates and listens.
    private func listen(_ session: ConversationSession<ContinuousClock>) async throws {
        for gate in ConversationGate.allCases { try await session.setGate(gate, open: true) }
        if await session.state == .idle { try await session.arm() }
        if await session.state == .armed { try await session.startListening(.user) }
    }

    /// Closes the conversation (saving what was heard of a reply in progress) and remembers
    /// its thread for the next one.
    private func endConversation() async {
        guard let conversation else { return }
        self.conversation = nil
        // A transcript under review is dropped, so that the conversation can close.
        try? carryOut(review.reset())
        await conversation.session.close()
        await conversation.prepared()
        await following?.value
        following = nil
        if let saved = await conversation.thread { thread = saved }
        if response != nil { finishResponse(status: "cancelled") }
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
            // A reply cut before it was heard has no turn of its own: it ends here. A paused
            // one goes on until the speech proves an interruption.
            if response != nil, !speechOverResponse { finishResponse(status: "cancelled") }
            let item = Self.id("item")
            userItem = item
            partial = ""
            send("input_audio_buffer.speech_started", ["audio_start_ms": Self.milliseconds(at), "item_id": .string(item)])
            if speechOverResponse { send("parley.response.paused", response.map { ["response_id": .string($0.id), "item_id": .string(item)] } ?? ["item_id": .string(item)]) }
        case .speechStopped(let at):
            let item = userItem ?? Self.id("item")
            userItem = item
            committing = false
            send("input_audio_buffer.speech_stopped", ["audio_end_ms": Self.milliseconds(at), "item_id": .string(item)])
            // Speech over a paused response is committed only once it proves an interruption.
            guard !speechOverResponse else {
                heldStop = at
                return
            }
            commitUserItem(item)
        case .replyResumed:
            guard speechOverResponse else { return }
            var fields: JSONObject = ["item_id": userItem.map(JSONValue.string) ?? .null,
                                      "transcript": heldTranscript.map(JSONValue.string) ?? .null]
            if let response { fields["response_id"] = .string(response.id) }
            send("parley.response.resumed", fields)
            endSpeechOverResponse()
            userItem = nil
            partial = ""
        case .replyInterrupted:
            // A reply cut before it was heard has no turn of its own: it ends here.
            if response != nil { finishResponse(status: "cancelled") }
            releaseSpeechOverResponse()
            if lastState == .thinking, !admitReply() {
                if let session = conversation?.session { Task { try? await session.cancel() } }
            }
        case .partialTranscript(let text):
            guard let item = userItem else { return }
            let delta = text.hasPrefix(partial) ? String(text.dropFirst(partial.count)) : text
            partial = text
            // A partial that is not an extension of the last one cannot be told as a delta: the
            // whole partial transcript goes beside it (a Parley extension).
            send("conversation.item.input_audio_transcription.delta", ["item_id": .string(item), "content_index": .number(0), "delta": .string(delta),
                                                                       "parley": .object(["transcript": .string(text)])])
        case .finalTranscript(let text):
            guard speechOverResponse else {
                transcribed(text)
                return
            }
            heldTranscript = text
            // Speech over a response is transcribed only when it lasted long enough to cut it;
            // words that will cut it and await the client's review are told now, or the review
            // would wait for a transcript the client never saw.
            if !settings.answersTurns, let rules = settings.interruption,
               !rules.backchannels.contains(text, language: settings.transcription?.language) {
                releaseSpeechOverResponse()
            }
        case .transition(let from, let to):
            lastState = to
            if to == .paused, !speechOverResponse {
                speechOverResponse = true
                heldStop = nil
                heldTranscript = nil
            }
            if from == .paused, to == .listening {
                // Cut, or ended (or cancelled) while paused: the speech is a turn like any.
                releaseSpeechOverResponse()
            }
            if from == .thinking, awaitingTranscript, to == .listening || to == .armed {
                transcribed("")  // speech in which no words were recognised: no turn
                review.forgetEarlyDecision()
            }
            if from == .listening, to == .armed, committing {
                committing = false
                answeredByCommit = false
                sendError(RealtimeProtocolError(code: "input_audio_buffer_commit_empty", message: "No speech was found in the committed audio: nothing to answer."), eventID: nil)
            }
            // A paused reply that goes on is no new reply; one that is cut is admitted with
            // `replyInterrupted`.
            if to == .thinking, from != .speaking, from != .paused, !admitReply() {
                // Over the key's limit: this reply is not written (the error says when to retry).
                if let session = conversation?.session { Task { try? await session.cancel() } }
            }
            if case .error(let reason) = to { await failed(reason) }
        case .replyText(let piece):
            ensureResponse()
            response?.text += piece
            if let response {
                send(response.textOnly ? "response.output_text.delta" : "response.output_audio_transcript.delta",
                     ["response_id": .string(response.id), "item_id": .string(response.itemID), "output_index": .number(0),
                      "content_index": .number(0), "delta": .string(piece)])
            }
        case .turn(let turn):
            let thread = await conversation?.thread ?? self.thread
            guard !turn.isTyped || response != nil || !turn.reply.isEmpty else { return }
            ensureResponse()
            finishResponse(status: turn.interrupted ? "cancelled" : "completed", transcript: turn.reply, usage: turn.usage,
                           parley: Self.parleyJSON(turn, thread: thread), calls: turn.toolCalls)
            // A response that ended (or was cut) after its pause: the speech over it is a turn.
            if lastState != .paused { releaseSpeechOverResponse() }
        case .rejected, .audioLevel:
            break
        }
    }

    /// Tells the client the user's speech is committed as item `item`.
    private func commitUserItem(_ item: String) {
        awaitingTranscript = true
        send("input_audio_buffer.committed", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item_id": .string(item)])
        let spoken = Self.item(item, role: "user", status: "completed", content: [.object(["type": .string("input_audio"), "transcript": .null])])
        send("conversation.item.added", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item": spoken])
        lastItem = item
    }

    /// The speech over the response is a turn after all: what was held of it is told.
    private func releaseSpeechOverResponse() {
        guard speechOverResponse else { return }
        let stopped = heldStop, transcript = heldTranscript
        endSpeechOverResponse()
        if stopped != nil, let item = userItem {
            commitUserItem(item)
            if let transcript { transcribed(transcript) }
        }
    }

    private func endSpeechOverResponse() {
        speechOverResponse = false
        heldStop = nil
        heldTranscript = nil
    }

    private func transcribed(_ text: String) {
        guard awaitingTranscript, let item = userItem else { return }
        awaitingTranscript = false
        send("conversation.item.input_audio_transcription.completed", ["item_id": .string(item), "content_index": .number(0), "transcript": .string(text)])
        let spoken = Self.item(item, role: "user", status: "completed", content: [.object(["type": .string("input_audio"), "transcript": .string(text)])])
        send("conversation.item.done", ["item": spoken])
        items[item] = KnownItem(json: spoken, role: .user, text: text)
        userItem = nil
        // Held for the client's review: it answers with response.create or parley.transcript.send/discard.
        if !text.isEmpty, !settings.answersTurns, !settings.transcriptionOnly { try? carryOut(review.announce(item)) }
    }

    /// The conversation failed (a provider, or the store): the response in progress fails, the
    /// client hears why, and the conversation listens again.
    private func failed(_ reason: String) async {
        if response != nil { finishResponse(status: "failed") }
        awaitingTranscript = false
        committing = false
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
        guard let response, !response.textOnly else { return }
        let bytes = settings.outputCodec.map { $0.encode(chunk) } ?? PCM16.encode(chunk, rate: settings.outputRate)
        send("response.output_audio.delta", ["response_id": .string(response.id), "item_id": .string(response.itemID), "output_index": .number(0),
                                             "content_index": .number(0), "delta": .string(Data(bytes).base64EncodedString())])
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
        guard response == nil else { return }
        let parameters = nextResponse
        nextResponse = .init()
        let opened = OpenResponse(id: Self.id("resp"), itemID: Self.id("item"), textOnly: parameters.textOnly ?? settings.textOnly,
                                  metadata: parameters.metadata)
        response = opened
        send("response.created", ["response": responseJSON(opened, status: "in_progress", output: [])])
        let item = Self.item(opened.itemID, role: "assistant", status: "in_progress", content: [])
        send("response.output_item.added", ["response_id": .string(opened.id), "output_index": .number(0), "item": item])
        send("conversation.item.added", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item": item])
        send("response.content_part.added", ["response_id": .string(opened.id), "item_id": .string(opened.itemID), "output_index": .number(0),
                                             "content_index": .number(0), "part": part(transcript: "", textOnly: opened.textOnly)])
        lastItem = opened.itemID
    }

    private func finishResponse(status: String, transcript: String? = nil, usage: Usage? = nil, parley: JSONValue? = nil,
                                calls: [ToolCall] = []) {
        guard let open = response else { return }
        response = nil
        let text = transcript ?? open.text
        let ids: JSONObject = ["response_id": .string(open.id), "item_id": .string(open.itemID), "output_index": .number(0), "content_index": .number(0)]
        if open.textOnly {
            send("response.output_text.done", ids.merging(["text": .string(text)]))
        } else {
            send("response.output_audio.done", ids)
            send("response.output_audio_transcript.done", ids.merging(["transcript": .string(text)]))
        }
        send("response.content_part.done", ids.merging(["part": part(transcript: text, textOnly: open.textOnly)]))
        let item = Self.item(open.itemID, role: "assistant", status: status == "completed" ? "completed" : "incomplete",
                             content: [part(transcript: text, output: true, textOnly: open.textOnly)])
        send("response.output_item.done", ["response_id": .string(open.id), "output_index": .number(0), "item": item])
        send("conversation.item.done", ["item": item])
        lastItem = open.itemID
        items[open.itemID] = KnownItem(json: item, role: .assistant, text: text)
        // The tools the model called, for the client to run: a function_call item each.
        var output = [item]
        for (offset, call) in calls.enumerated() {
            let itemID = Self.id("item")
            let index = JSONValue.number(Double(offset + 1))
            let callItem = { (status: String, arguments: String) -> JSONValue in
                ["id": .string(itemID), "object": "realtime.item", "type": "function_call", "status": .string(status),
                 "name": .string(call.name), "call_id": .string(call.id), "arguments": .string(arguments)]
            }
            send("response.output_item.added", ["response_id": .string(open.id), "output_index": index, "item": callItem("in_progress", "")])
            send("conversation.item.added", ["previous_item_id": lastItem.map(JSONValue.string) ?? .null, "item": callItem("in_progress", "")])
            let ids: JSONObject = ["response_id": .string(open.id), "item_id": .string(itemID), "output_index": index, "call_id": .string(call.id)]
            send("response.function_call_arguments.delta", ids.merging(["delta": .string(call.arguments)]))
            send("response.function_call_arguments.done", ids.merging(["name": .string(call.name), "arguments": .string(call.arguments)]))
            let done = callItem("completed", call.arguments)
            send("response.output_item.done", ["response_id": .string(open.id), "output_index": index, "item": done])
            send("conversation.item.done", ["item": done])
            lastItem = itemID
            items[itemID] = KnownItem(json: done)
            output.append(done)
        }
        var done = responseJSON(open, status: status, output: output)
        if case .object(var fields) = done, let usage {
            fields["usage"] = .object(["input_tokens": .number(Double(usage.inputTokens)), "output_tokens": .number(Double(usage.outputTokens)),
                                       "total_tokens": .number(Double(usage.totalTokens))])
            done = .object(fields)
        }
        if case .object(var fields) = done, let parley {
            fields["parley"] = parley
            done = .object(fields)
        }
        send("response.done", ["response": done])
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
        send("rate_limits.updated", ["rate_limits": .array(admission.limits.realtimeEntries(options.owner))])
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
        let pendingMessages = parameters.input == nil ? pending.map { ChatMessage(role: .user, parts: $0.images + [.text($0.text)]) } : []
        let system = parameters.instructions ?? settings.instructions ?? "You are a helpful assistant."
        let messages = [ChatMessage.system(system)] + history + pendingMessages
        guard messages.count > 1 else {
            throw RealtimeProtocolError(code: "no_input", message: "An out-of-band response needs something to answer: give it 'input' items, or add messages to the conversation first.")
        }
        let selection = ModelResolution.selection(for: settings.model, capability: .languageModel, catalog: environment.runtime.catalog)
        var sampling = SamplingOptions()
        if let limit = settings.maxOutputTokens { sampling.maxTokens = limit }
        let request = ChatRequest(messages: messages, sampling: sampling)
        let llm = try await environment.languageModel(for: request, selection: selection, param: "response.input")
        guard admitReply() else { return }
        let open = OpenResponse(id: Self.id("resp"), itemID: Self.id("item"), textOnly: true, metadata: parameters.metadata)
        var created = responseJSON(open, status: "in_progress", output: [])
        if case .object(var fields) = created { fields["conversation_id"] = .null; created = .object(fields) }
        send("response.created", ["response": created])
        let ids: JSONObject = ["response_id": .string(open.id), "item_id": .string(open.itemID), "output_index": .number(0), "content_index": .number(0)]
        let item = { (status: String, text: String?) -> JSONValue in
            Self.item(open.itemID, role: "assistant", status: status, content: text.map { [.object(["type": "output_text", "text": .string($0)])] } ?? [])
        }
        send("response.output_item.added", ["response_id": .string(open.id), "output_index": .number(0), "item": item("in_progress", nil)])
        var text = ""
        var usage = Usage()
        var status = "completed"
        do {
            for try await event in llm.complete(request) {
                switch event {
                case .text(let piece):
                    text += piece
                    send("response.output_text.delta", ids.merging(["delta": .string(piece)]))
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
        send("response.output_text.done", ids.merging(["text": .string(text)]))
        let done = item(status == "completed" ? "completed" : "incomplete", text)
        send("response.output_item.done", ["response_id": .string(open.id), "output_index": .number(0), "item": done])
        var finished = responseJSON(open, status: status, output: [done])
        if case .object(var fields) = finished {
            fields["conversation_id"] = .null
            fields["usage"] = .object(["input_tokens": .number(Double(usage.inputTokens)), "output_tokens": .number(Double(usage.outputTokens)),
                                       "total_tokens": .number(Double(usage.totalTokens))])
            finished = .object(fields)
        }
        send("response.done", ["response": finished])
        charge(usage)
    }

    /// The position among `messages` of the message `item` stands for (the last with its
    /// role and text), if it is there.
    private static func index(of item: KnownItem, in messages: [ChatMessage]) -> Int? {
        guard let role = item.role, let text = item.text else { return nil }
        return messages.lastIndex { $0.role == role && $0.text.trimmingCharacters(in: .whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private static func itemNotFound(_ id: String, param: String) -> RealtimeProtocolError {
        RealtimeProtocolError(code: "item_not_found", message: "No item with id '\(id.prefix(64))' is in this conversation.", param: param)
    }

    /// What `response.done` tells beside OpenAI's fields (a Parley extension, in an object of
    /// its own): the saved thread, who answered, how long each stage took, and (with
    /// `semantic_vad`) why the turn ended and whether the reply was started during the pause.
    private static func parleyJSON(_ turn: TurnResult, thread: Int64?) -> JSONValue {
        .object([
            "thread_id": thread.map { .number(Double($0)) } ?? .null,
            "providers": encoded(turn.providers),
            "latency_ms": encoded(turn.latency),
            "timings_ms": encoded(turn.timings),
            "interrupted": .bool(turn.interrupted),
            "end_of_turn": turn.endOfTurn.map(JSONValue.string) ?? .null,
            "reply_started_early": .bool(turn.startedEarly),
            // The built-in tools the server ran for this reply, for a face to show.
            "tools": .array(turn.toolResults.map { result in
                ["name": .string(result.call.name), "arguments": .string(result.call.arguments), "output": .string(result.content),
                 "is_error": .bool(result.isError), "ms": .number(result.milliseconds.rounded())]
            }),
        ])
    }

    private static func encoded(_ value: some Encodable) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .null }
        return json
    }

    private func part(transcript: String, output: Bool = false, textOnly: Bool) -> JSONValue {
        if textOnly { return .object(["type": .string(output ? "output_text" : "text"), "text": .string(transcript)]) }
        return .object(["type": .string(output ? "output_audio" : "audio"), "transcript": .string(transcript)])
    }

    private func responseJSON(_ response: OpenResponse, status: String, output: [JSONValue]) -> JSONValue {
        .object(["id": .string(response.id), "object": .string("realtime.response"), "status": .string(status),
                 "output": .array(output), "output_modalities": .array([.string(response.textOnly ? "text" : "audio")]),
                 "conversation_id": .string(sessionID), "metadata": response.metadata ?? .null])
    }

    private var sessionJSON: JSONValue {
        settings.json(id: sessionID, transcriptionModel: "auto")
    }

    private static func item(_ id: String, role: String, status: String, content: [JSONValue]) -> JSONValue {
        .object(["id": .string(id), "object": .string("realtime.item"), "type": .string("message"), "role": .string(role),
                 "status": .string(status), "content": .array(content)])
    }

    // MARK: - Sending

    /// The beta names of the GA server events that were renamed.
    private static let betaNames = [
        "response.output_audio.delta": "response.audio.delta", "response.output_audio.done": "response.audio.done",
        "response.output_audio_transcript.delta": "response.audio_transcript.delta",
        "response.output_audio_transcript.done": "response.audio_transcript.done",
        "response.output_text.delta": "response.text.delta", "response.output_text.done": "response.text.done",
        "conversation.item.added": "conversation.item.created",
    ]

    private func send(_ type: String, _ fields: JSONObject) {
        if beta, type == "conversation.item.done" { return }
        lastEvent += 1
        var event = fields
        event["type"] = .string(beta ? Self.betaNames[type] ?? type : type)
        event["event_id"] = .string("event_\(sessionID.dropFirst(5))_\(lastEvent)")
        emit(JSONValue.object(event).text)
    }

    private func sendError(_ error: RealtimeProtocolError, eventID: String?) {
        logger.debug("realtime: \(error.code): \(error.message)")
        var body: JSONObject = ["type": .string(error.type), "code": .string(error.code), "message": .string(error.message),
                                         "param": error.param.map(JSONValue.string) ?? .null]
        body["event_id"] = eventID.map(JSONValue.string) ?? .null
        send("error", ["error": .object(body)])
    }

    /// A failure of the server's or a provider's, in the protocol's terms.
    private static func serverError(_ error: any Error) -> RealtimeProtocolError {
        if let error = error as? RealtimeProtocolError { return error }
        if let error = error as? OpenAIError {
            return RealtimeProtocolError(type: error.type, code: error.code ?? "server_error", message: error.message, param: error.param)
        }
        return RealtimeProtocolError(type: "server_error", code: "server_error", message: "\(error)")
    }

    private static func milliseconds(_ seconds: Double) -> JSONValue { .number((seconds * 1_000).rounded()) }

    /// A fresh id with OpenAI's prefix style (`item_…`, `resp_…`, `sess_…`).
    static func id(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased()
    }
}
