import ParleyCore

/// What the realtime protocol itself remembers between events, as a plain value: whether the
/// server still takes input, the user's speech (its item, the partial transcript told so far,
/// speech over a paused reply held back until it proves an interruption), the client's commit
/// and the transcript it awaits, whether a committed turn's reply already answers the next
/// `response.create`, the typed messages and tool outputs that the next response answers, and
/// whether the conversation could not be made (until when audio is dropped quietly).
///
/// ``RealtimeConnection`` asks it about each client event (``receive(_:)``) and each update of
/// the conversation (``update(_:)``): one ``Step`` or list of ``Consequence``s each, a
/// rejection among them as a value (sent as an `error` event). It holds no conversation, no
/// socket and no clock: the time comes with the events, so tests drive it on a manual clock.
struct RealtimeProtocol<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// Whether the server takes input.
    enum Phase: Equatable, Sendable {
        case serving
        /// The server is shutting down: every client event is refused.
        case draining
    }

    /// The client's `input_audio_buffer.commit`.
    enum Commit: Equatable, Sendable {
        case none
        /// Asked for; the conversation has not ended the turn yet.
        case requested
    }

    /// The transcript of the user's last committed turn.
    enum Transcript: Equatable, Sendable {
        case none
        /// The turn was committed as an item; its final transcript has not been told yet.
        case awaited
    }

    /// The user's speech being told: its item, and the partial transcript told so far.
    struct Speech: Equatable, Sendable {
        var itemID: String
        var partial = ""
    }

    /// Speech over a paused reply, held back until it proves an interruption.
    enum HeldSpeech: Equatable, Sendable {
        case none
        /// The user speaks over the paused reply: `stopped` once they stopped (the commit is
        /// not sent yet), with `transcript`, what was heard of it, once heard.
        case held(stopped: Bool, transcript: String?)
    }

    /// A typed user message waiting for `response.create`.
    struct PendingMessage: Equatable, Sendable {
        var itemID: String
        var text: String
        var images: [ChatMessage.Part]
    }

    /// What the connection knows beside the protocol when a response is asked for.
    struct ResponseContext: Equatable, Sendable {
        /// A transcription session: it answers nothing.
        var transcriptionOnly = false
        /// Whether a turn is answered when it ends (`turn_detection.create_response`).
        var answersTurns = true
        /// Whether a transcript awaits the client's review.
        var reviewing = false
        /// The conversation's state (`idle` before there is one).
        var state = ConversationState.idle
    }

    /// A client event, as far as the protocol is concerned.
    enum ClientEvent: Equatable, Sendable {
        /// `session.update`, `conversation.item.retrieve`, `.delete`, `.truncate`: nothing of
        /// the protocol's changes.
        case other
        /// `input_audio_buffer.append` of `bytes` of decoded audio at `at`; `manualTurn` when
        /// the client ends turns itself (`turn_detection: null`).
        case appendAudio(hasConversation: Bool, bytes: Int, manualTurn: Bool, at: Instant)
        /// `input_audio_buffer.commit`.
        case commitAudio(hasConversation: Bool)
        /// `input_audio_buffer.clear`.
        case clearAudio
        /// `conversation.item.create` of a user message at the end: the next reply's question.
        case createQuestion(PendingMessage)
        /// `conversation.item.create` of context (anything else).
        case createContext
        /// `conversation.item.delete` of a waiting question.
        case deleteQuestion(itemID: String)
        /// `conversation.item.create` of a `function_call_output`, added to the conversation.
        case createToolOutput
        /// `response.create` (in the conversation).
        case createResponse(ResponseContext)
        /// `response.cancel`: `active` when a reply is open or the conversation thinks, speaks
        /// or is paused.
        case cancelResponse(active: Bool)
        /// `parley.transcript.send` / `.discard`.
        case decideTranscript(TranscriptReview.Decision)
    }

    /// What the connection does with a client event.
    enum Step: Equatable, Sendable {
        /// Carry it out.
        case proceed
        /// Drop it without a word (audio while the conversation cannot be made).
        case ignore
        /// Refuse it: an `error` event.
        case reject(RealtimeProtocolError)
        /// End the turn when the audio before it has been heard (on the audio lane).
        case stopListening
        /// Hand the client's decision to the transcript review; `transcribing` says whether a
        /// transcript is on its way.
        case review(TranscriptReview.Decision, transcribing: Bool)
        /// Start the response this way.
        case respond(ResponsePlan)
    }

    /// How `response.create` is answered.
    enum ResponsePlan: Equatable, Sendable {
        /// Send the transcript held for review as heard (OpenAI's way to answer a turn when
        /// `create_response` is false).
        case sendHeldTranscript
        /// Answer the tool outputs added since the last response.
        case answerToolOutputs
        /// A committed turn's reply (or the reply in progress) answers it already: nothing new.
        case alreadyAnswered
        /// Answer the conversation as it stands (the assistant speaks first).
        case answerConversation
        /// Answer the waiting typed messages.
        case answerQuestions([PendingMessage])
    }

    /// What the conversation reported, as far as the protocol is concerned.
    enum Update: Equatable, Sendable {
        /// The user started speaking; `itemID` is a fresh id for the speech's item.
        case speechStarted(itemID: String)
        /// The user stopped speaking (the turn ends, or waits for proof it cuts a reply);
        /// `itemID` is a fresh id, for speech whose start was not told.
        case speechStopped(itemID: String)
        /// A partial transcript of the speech.
        case partialTranscript(String)
        /// The speech's final transcript; `cutsReply` when, heard over a paused reply, its words
        /// will cut it and await the client's review (they are told at once).
        case finalTranscript(String, cutsReply: Bool)
        /// The speech over the paused reply was no interruption: the reply goes on.
        case replyResumed
        /// The speech over the reply cut it.
        case replyInterrupted
        /// A turn ended (its reply done or cut).
        case turnEnded
        /// The commit's audio lane found the conversation not listening.
        case commitFoundNothing
        /// The conversation moved from one state to another.
        case transition(from: ConversationState, to: ConversationState)
        /// The conversation failed.
        case failed
    }

    /// What follows from an update, in order.
    enum Consequence: Equatable, Sendable {
        /// The reply in progress ends, cancelled (cut before it was heard, it has no turn).
        case cutReply
        /// `input_audio_buffer.speech_started` for item `itemID`.
        case tellSpeechStarted(itemID: String)
        /// `parley.response.paused`: the user speaks over the reply.
        case tellPaused(itemID: String)
        /// `input_audio_buffer.speech_stopped` for item `itemID`.
        case tellSpeechStopped(itemID: String)
        /// `input_audio_buffer.committed` and the user item (its transcript now awaited).
        case commitSpeech(itemID: String)
        /// `parley.response.resumed`, with what was heard of the speech.
        case tellResumed(itemID: String?, transcript: String?)
        /// A partial transcript: `delta` after the last one told, `transcript` whole.
        case tellPartial(itemID: String, delta: String, transcript: String)
        /// The final transcript of item `itemID` (empty: no words were heard).
        case tellTranscript(itemID: String, text: String)
        /// A decision the client made on a transcript that never came is void.
        case forgetEarlyDecision
        /// Refuse the commit: an `error` event.
        case reject(RealtimeProtocolError)
    }

    private(set) var phase = Phase.serving
    private(set) var commit = Commit.none
    private(set) var transcript = Transcript.none
    /// The reply being sent.
    private(set) var reply: RealtimeReply?
    /// The conversation's state as last reported.
    private(set) var conversationState = ConversationState.idle
    /// The user's speech being told (its item stays until its transcript is told).
    private(set) var speech: Speech?
    /// Speech over a paused reply, held back.
    private(set) var held = HeldSpeech.none
    /// Whether the reply to a committed turn answers the next `response.create` too.
    private(set) var commitAnswersNextResponse = false
    /// Whether tool outputs came since the last response.
    private(set) var toolOutputsPending = false
    /// Typed messages waiting for `response.create`, in order.
    private(set) var pending: [PendingMessage] = []
    /// Why the conversation could not be made, until when audio is dropped without saying so
    /// again (one error event, not one per audio frame).
    private(set) var unavailable: (error: RealtimeProtocolError, until: Instant)?

    /// The most audio, in bytes, queued for the conversation, and held by a manual turn.
    let audioLimit: Int
    /// The audio queued for the conversation and not yet heard, in bytes.
    private(set) var queuedAudio = 0
    /// The audio of a manual turn appended since its last commit or clear, in bytes.
    private(set) var turnAudio = 0

    /// A protocol that holds at most `audioLimit` bytes of audio
    /// (``ServerConfiguration/maxRealtimeQueuedAudioBytes``).
    init(audioLimit: Int = .max) {
        self.audioLimit = audioLimit
    }

    /// How long audio is dropped quietly after the conversation could not be made.
    static var unavailableQuiet: Duration { .seconds(5) }

    static var shuttingDown: RealtimeProtocolError {
        RealtimeProtocolError(
            type: "server_error", code: "server_shutting_down",
            message: "The server is shutting down: reconnect to continue (the thread is saved).")
    }

    static var emptyCommit: RealtimeProtocolError {
        RealtimeProtocolError(
            code: "input_audio_buffer_commit_empty", message: "There is no audio to commit: append speech with input_audio_buffer.append first.")
    }

    static var noSpeechCommitted: RealtimeProtocolError {
        RealtimeProtocolError(code: "input_audio_buffer_commit_empty", message: "No speech was found in the committed audio: nothing to answer.")
    }

    static var transcriptionSession: RealtimeProtocolError {
        RealtimeProtocolError(
            code: "transcription_session",
            message: "This is a transcription session: it transcribes speech and answers nothing. Set session.type to realtime for replies.")
    }

    static var responseActive: RealtimeProtocolError {
        RealtimeProtocolError(
            code: "conversation_already_has_active_response", message: "A response is in progress: wait for response.done, or send response.cancel first.")
    }

    static var nothingToCancel: RealtimeProtocolError {
        RealtimeProtocolError(code: "response_cancel_not_active", message: "There is no response in progress to cancel.")
    }

    /// Whether a transcript is on its way (a commit asked for, or a committed turn's).
    var transcribing: Bool { commit == .requested || transcript == .awaited }

    // MARK: - Client events

    /// What to do with `event`; the protocol's state moves as it says.
    mutating func receive(_ event: ClientEvent) -> Step {
        guard phase == .serving else { return .reject(Self.shuttingDown) }
        switch event {
        case .other, .createContext:
            return .proceed
        case .clearAudio:
            speech = nil
            turnAudio = 0
            return .proceed
        case .appendAudio(let hasConversation, let bytes, let manualTurn, let now):
            guard queuedAudio <= audioLimit - bytes else {
                return .reject(
                    RealtimeProtocolError(
                        code: "input_audio_buffer_full",
                        message:
                            "This audio was dropped: the server holds \(queuedAudio >> 20) MB of audio not yet heard. Send audio no faster than it is spoken, and append again once it catches up."
                    ))
            }
            // A turn the client ends itself holds all its audio until the commit: as much as
            // the queue may hold, and no more.
            if manualTurn {
                guard turnAudio <= audioLimit - bytes else {
                    return .reject(
                        RealtimeProtocolError(
                            code: "input_audio_buffer_full",
                            message:
                                "This audio was dropped: the turn holds \(turnAudio >> 20) MB of audio. Commit it (input_audio_buffer.commit) or clear it before appending more."
                        ))
                }
                turnAudio += bytes
            }
            if let unavailable, now < unavailable.until, !hasConversation { return .ignore }
            return .proceed
        case .commitAudio(let hasConversation):
            turnAudio = 0
            guard hasConversation else { return .reject(Self.emptyCommit) }
            commit = .requested
            commitAnswersNextResponse = true
            return .stopListening
        case .createQuestion(let message):
            pending.append(message)
            return .proceed
        case .deleteQuestion(let itemID):
            pending.removeAll { $0.itemID == itemID }
            return .proceed
        case .createToolOutput:
            toolOutputsPending = true
            return .proceed
        case .cancelResponse(let active):
            return active ? .proceed : .reject(Self.nothingToCancel)
        case .decideTranscript(let decision):
            commitAnswersNextResponse = false
            return .review(decision, transcribing: transcribing)
        case .createResponse(let context):
            return respond(context)
        }
    }

    private mutating func respond(_ context: ResponseContext) -> Step {
        guard !context.transcriptionOnly else { return .reject(Self.transcriptionSession) }
        // A turn held for review (or about to be) is sent as heard.
        if !context.answersTurns, context.reviewing || transcribing {
            commitAnswersNextResponse = false
            return .respond(.sendHeldTranscript)
        }
        if pending.isEmpty, toolOutputsPending {
            toolOutputsPending = false
            commitAnswersNextResponse = false
            return .respond(.answerToolOutputs)
        }
        if pending.isEmpty, commitAnswersNextResponse || reply != nil {
            commitAnswersNextResponse = false
            return .respond(.alreadyAnswered)
        }
        guard context.state == .idle || context.state == .armed || context.state == .listening else {
            return .reject(Self.responseActive)
        }
        commitAnswersNextResponse = false
        guard !pending.isEmpty else { return .respond(.answerConversation) }
        defer { pending = [] }
        return .respond(.answerQuestions(pending))
    }

    // MARK: - The conversation

    /// What follows from `update`; the protocol's state moves as it says.
    mutating func update(_ update: Update) -> [Consequence] {
        switch update {
        case .speechStarted(let itemID):
            // A reply cut before it was heard has no turn of its own: it ends here. A paused
            // one goes on until the speech proves an interruption.
            let holding = held != .none
            speech = Speech(itemID: itemID)
            return (holding || reply == nil ? [] : [.cutReply]) + [.tellSpeechStarted(itemID: itemID)] + (holding ? [.tellPaused(itemID: itemID)] : [])
        case .speechStopped(let fresh):
            let item = speech?.itemID ?? fresh
            speech = Speech(itemID: item, partial: speech?.partial ?? "")
            commit = .none
            // Speech over a paused reply is committed only once it proves an interruption.
            if case .held(_, let heard) = held {
                held = .held(stopped: true, transcript: heard)
                return [.tellSpeechStopped(itemID: item)]
            }
            return [.tellSpeechStopped(itemID: item), commitSpeech(item)]
        case .partialTranscript(let text):
            guard var told = speech else { return [] }
            let delta = text.hasPrefix(told.partial) ? String(text.dropFirst(told.partial.count)) : text
            told.partial = text
            speech = told
            return [.tellPartial(itemID: told.itemID, delta: delta, transcript: text)]
        case .finalTranscript(let text, let cutsReply):
            guard case .held(let stopped, _) = held else { return transcribed(text) }
            held = .held(stopped: stopped, transcript: text)
            // Speech over a reply is transcribed only when it lasted long enough to cut it;
            // words that will cut it and await the client's review are told now, or the review
            // would wait for a transcript the client never saw.
            return cutsReply ? release() : []
        case .replyResumed:
            guard case .held(_, let heard) = held else { return [] }
            let told = Consequence.tellResumed(itemID: speech?.itemID, transcript: heard)
            held = .none
            speech = nil
            return [told]
        case .replyInterrupted:
            return (reply == nil ? [] : [.cutReply]) + release()
        case .turnEnded:
            // A reply that ended (or was cut) after its pause: the speech over it is a turn.
            return conversationState == .paused ? [] : release()
        case .commitFoundNothing:
            commit = .none
            commitAnswersNextResponse = false
            return [.reject(Self.emptyCommit)]
        case .transition(let from, let to):
            var consequences: [Consequence] = []
            conversationState = to
            if to == .paused, held == .none { held = .held(stopped: false, transcript: nil) }
            // Cut, or ended (or cancelled) while paused: the speech is a turn like any.
            if from == .paused, to == .listening { consequences += release() }
            if from == .thinking, transcript == .awaited, to == .listening || to == .armed {
                // Speech in which no words were recognised: no turn.
                consequences += transcribed("") + [.forgetEarlyDecision]
            }
            if from == .listening, to == .armed, commit == .requested {
                commit = .none
                commitAnswersNextResponse = false
                consequences.append(.reject(Self.noSpeechCommitted))
            }
            return consequences
        case .failed:
            transcript = .none
            commit = .none
            return []
        }
    }

    /// The user item `item` is committed: its transcript is awaited.
    private mutating func commitSpeech(_ item: String) -> Consequence {
        transcript = .awaited
        return .commitSpeech(itemID: item)
    }

    /// The awaited transcript, `text`, is told; the speech is over.
    private mutating func transcribed(_ text: String) -> [Consequence] {
        guard transcript == .awaited, let item = speech?.itemID else { return [] }
        transcript = .none
        speech = nil
        return [.tellTranscript(itemID: item, text: text)]
    }

    /// The speech over the paused reply is a turn after all: what was held of it is told.
    private mutating func release() -> [Consequence] {
        guard case .held(let stopped, let heard) = held else { return [] }
        held = .none
        guard stopped, let item = speech?.itemID else { return [] }
        return [commitSpeech(item)] + (heard.map { transcribed($0) } ?? [])
    }

    /// `bytes` of audio were queued for the conversation.
    mutating func audioQueued(_ bytes: Int) {
        queuedAudio += bytes
    }

    /// `bytes` of queued audio were heard (or skipped).
    mutating func audioHeard(_ bytes: Int) {
        queuedAudio -= bytes
    }

    /// `reply` is being sent (when no other is).
    mutating func openReply(_ opened: RealtimeReply) {
        guard reply == nil else { return }
        reply = opened
    }

    /// Adds `piece` to the text of the reply being sent, and returns it (`nil`: none is).
    mutating func replyText(_ piece: String) -> RealtimeReply? {
        reply?.text += piece
        return reply
    }

    /// The reply being sent is done: it is returned, and no reply is open.
    mutating func closeReply() -> RealtimeReply? {
        defer { reply = nil }
        return reply
    }

    /// The server shuts down: no more input is taken.
    mutating func drain() {
        phase = .draining
    }

    /// The conversation could not be made at `now`: audio is dropped quietly for a while.
    mutating func conversationUnavailable(_ error: RealtimeProtocolError, at now: Instant) {
        unavailable = (error, now.advanced(by: Self.unavailableQuiet))
    }

    /// The conversation was made.
    mutating func conversationMade() {
        unavailable = nil
    }
}

/// A reply being sent: its response and item, its text so far, and how it is sent.
struct RealtimeReply: Equatable, Sendable {
    var id: String
    var itemID: String
    var text = ""
    /// Whether this reply is sent as text only (the session's choice, or the response's).
    var textOnly = false
    /// The client's metadata of `response.create`, echoed.
    var metadata: JSONValue?

    /// Where its text or audio goes.
    var content: RealtimeServerEvent.ContentRef { .init(responseID: id, itemID: itemID) }
}
