import ParleyCore

/// What the realtime protocol itself remembers between events, as a plain value: whether the
/// server still takes input, the client's commit and the transcript it awaits, whether a
/// committed turn's reply already answers the next `response.create`, the typed messages and
/// tool outputs that the next response answers, and whether the conversation could not be
/// made (until when audio is dropped quietly).
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
        /// Whether a reply is being sent.
        var responseOpen = false
        /// The conversation's state (`idle` before there is one).
        var state = ConversationState.idle
    }

    /// A client event, as far as the protocol is concerned.
    enum ClientEvent: Equatable, Sendable {
        /// `session.update`, `conversation.item.retrieve`, `.delete`, `.truncate`: nothing of
        /// the protocol's changes.
        case other
        /// `input_audio_buffer.append`, at `at`.
        case appendAudio(hasConversation: Bool, at: Instant)
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
        /// The user stopped speaking (the turn ends, or waits for proof it cuts a reply).
        case speechStopped
        /// The turn was committed as a user item (`input_audio_buffer.committed` was sent).
        case committed
        /// The turn's final transcript is here.
        case transcribed
        /// The commit's audio lane found the conversation not listening.
        case commitFoundNothing
        /// The conversation moved from one state to another.
        case transition(from: ConversationState, to: ConversationState)
        /// The conversation failed.
        case failed
    }

    /// What follows from an update.
    enum Consequence: Equatable, Sendable {
        /// Tell the transcript as it is (`true`: an awaited one) — see ``Update/transcribed``.
        case tellTranscript
        /// The awaited transcript holds no words: tell an empty one, and a review decision
        /// made early is void.
        case noWordsHeard
        /// Refuse the commit: an `error` event.
        case reject(RealtimeProtocolError)
    }

    private(set) var phase = Phase.serving
    private(set) var commit = Commit.none
    private(set) var transcript = Transcript.none
    /// Whether the reply to a committed turn answers the next `response.create` too.
    private(set) var commitAnswersNextResponse = false
    /// Whether tool outputs came since the last response.
    private(set) var toolOutputsPending = false
    /// Typed messages waiting for `response.create`, in order.
    private(set) var pending: [PendingMessage] = []
    /// Why the conversation could not be made, until when audio is dropped without saying so
    /// again (one error event, not one per audio frame).
    private(set) var unavailable: (error: RealtimeProtocolError, until: Instant)?

    /// How long audio is dropped quietly after the conversation could not be made.
    static var unavailableQuiet: Duration { .seconds(5) }

    static var shuttingDown: RealtimeProtocolError {
        RealtimeProtocolError(type: "server_error", code: "server_shutting_down",
                              message: "The server is shutting down: reconnect to continue (the thread is saved).")
    }

    static var emptyCommit: RealtimeProtocolError {
        RealtimeProtocolError(code: "input_audio_buffer_commit_empty", message: "There is no audio to commit: append speech with input_audio_buffer.append first.")
    }

    static var noSpeechCommitted: RealtimeProtocolError {
        RealtimeProtocolError(code: "input_audio_buffer_commit_empty", message: "No speech was found in the committed audio: nothing to answer.")
    }

    static var transcriptionSession: RealtimeProtocolError {
        RealtimeProtocolError(code: "transcription_session",
                              message: "This is a transcription session: it transcribes speech and answers nothing. Set session.type to realtime for replies.")
    }

    static var responseActive: RealtimeProtocolError {
        RealtimeProtocolError(code: "conversation_already_has_active_response", message: "A response is in progress: wait for response.done, or send response.cancel first.")
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
        case .other, .createContext, .clearAudio:
            return .proceed
        case .appendAudio(let hasConversation, let now):
            if let unavailable, now < unavailable.until, !hasConversation { return .ignore }
            return .proceed
        case .commitAudio(let hasConversation):
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
        if pending.isEmpty, commitAnswersNextResponse || context.responseOpen {
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
        case .speechStopped:
            commit = .none
            return []
        case .committed:
            transcript = .awaited
            return []
        case .transcribed:
            guard transcript == .awaited else { return [] }
            transcript = .none
            return [.tellTranscript]
        case .commitFoundNothing:
            commit = .none
            commitAnswersNextResponse = false
            return [.reject(Self.emptyCommit)]
        case .transition(let from, let to):
            var consequences: [Consequence] = []
            if from == .thinking, transcript == .awaited, to == .listening || to == .armed {
                consequences.append(.noWordsHeard)
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
