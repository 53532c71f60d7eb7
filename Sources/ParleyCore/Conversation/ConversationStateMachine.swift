/// The rules of a voice conversation as a pure value: feed it events, carry out the one action
/// each returns. It performs no I/O and reads no clock; time arrives inside the events, so
/// tests drive it with any `InstantProtocol` (a manual clock's instants included).
///
/// Events that make no sense in the current state are rejected with a reason and change
/// nothing.
public struct ConversationStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Swift.Duration {
    /// The rules in force (see ``ConversationRules``).
    public typealias Configuration = ConversationRules

    /// Something that happened to the conversation.
    public enum Event: Sendable, Equatable {
        /// The host opened or closed a gate.
        case setGate(ConversationGate, open: Bool)
        /// Make the conversation ready to listen (idle → armed).
        case arm
        /// Start listening (armed → listening).
        case startListening(ListenTrigger, at: Instant)
        /// Stop listening: back to armed, or, if the user is speaking, end the utterance now
        /// (push-to-talk released) and answer it.
        case stopListening
        /// The VAD heard speech begin.
        case speechStarted(at: Instant)
        /// The VAD heard the user stop (the configured silence has passed).
        case speechEnded(at: Instant)
        /// The speech over a paused reply has lasted this long so far (voiced audio, as the VAD
        /// measured it).
        case speechLasted(Duration)
        /// A partial transcript of the speech over a paused reply.
        case partiallyTranscribed(String)
        /// The host takes the speech over the paused reply for no interruption: it resumes.
        case resume
        /// The turn's final transcript is ready (empty when no words were recognised).
        case transcribed(String, at: Instant)
        /// The user typed a message (with or without attachments).
        case typed(String)
        /// The client sent the results of the tools the last reply called; the reply to them
        /// starts.
        case toolResults
        /// The first audio of the reply is ready to play.
        case replyAudioStarted
        /// The reply was played to its end (or generated with nothing to play).
        case replyFinished(at: Instant)
        /// The host cancels the reply in progress.
        case cancelReply(at: Instant)
        /// The listen timeout scheduled for an instant at or before this one fired.
        case listenTimeoutExpired(at: Instant)
        /// A stage failed for good.
        case failed(String)
        /// Leave the error state.
        case reset
        /// Stop everything and close the microphone.
        case stop
    }

    /// How far a reply that is cut short had come, which says what cutting it takes.
    public enum ReplyCut: Sendable, Equatable {
        /// Nothing of it was played: cancel it; the question stays in the history, unanswered.
        case beforePlayback
        /// It was playing: cancel it, stop playback, and save what the listener heard as an
        /// interrupted assistant turn.
        case duringPlayback
    }

    /// What the host must do after an event: exactly one action, each carried out in full.
    public enum Action: Sendable, Equatable {
        /// Nothing.
        case none
        /// Open the audio input and start the VAD.
        case openAudio
        /// Listening gives up at this instant if no speech has begun.
        case scheduleListenTimeout(Instant)
        /// Cancel the listen timeout and start collecting the user's utterance.
        case beginUtterance
        /// The user spoke over the reply: cut it short as ``ReplyCut`` says, then begin the
        /// utterance.
        case bargeIn(ReplyCut)
        /// The user spoke over the reply (with ``ConversationRules/interruption``): pause its
        /// playback (generation goes on, its audio held), cancel the listen timeout and begin
        /// collecting the utterance.
        case pauseReply
        /// The speech over the paused reply was a backchannel or noise: drop the utterance
        /// (nothing of it is a turn) and resume the reply's playback where it paused.
        case resumeReply
        /// The speech over the paused reply is an interruption: cut the reply short as
        /// ``ReplyCut`` says; the utterance goes on as the user's turn.
        case interruptReply(ReplyCut)
        /// The speech over the paused reply ended and is an interruption: cut the reply short
        /// as ``ReplyCut`` says, then persist the user's turn with this text and reply to it.
        case interruptAndReply(ReplyCut, String)
        /// The utterance has ended: transcribe it (and report the transcript back).
        case transcribe
        /// Nothing was recognised: drop the utterance; schedule the listen timeout anew, if
        /// given.
        case discardUtterance(rescheduleTimeout: Instant?)
        /// Cancel the listen timeout, persist the user's turn with this text, then generate and
        /// speak the reply.
        case saveUserTurnAndReply(String)
        /// Start playing the reply's audio.
        case startPlayback
        /// The reply was played: persist the assistant's turn; schedule the listen timeout, if
        /// given.
        case finishReply(listenTimeout: Instant?)
        /// The host cancelled the reply: cut it short as ``ReplyCut`` says; schedule the listen
        /// timeout, if given.
        case cancelReply(ReplyCut, listenTimeout: Instant?)
        /// Stop listening (cancel the listen timeout); the audio stays open.
        case stopListening
        /// Listening gave up after the timeout; the audio stays open.
        case listenTimedOut
        /// Cancel the listen timeout, cut short the reply in progress, if any, and close the
        /// audio input.
        case shutDown(cutting: ReplyCut?)
    }

    /// Why an event was refused.
    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        /// The state the machine was in.
        public var state: ConversationState
        /// A sentence saying why.
        public var reason: String

        public var description: String { "\(reason) (while \(state))" }
    }

    /// The result of an accepted event.
    public struct Transition: Sendable, Equatable {
        /// The state before the event.
        public var from: ConversationState
        /// The state after it (the same as `from` when the event did not move the state).
        public var to: ConversationState
        /// What the host must do.
        public var action: Action

        /// Whether the state changed.
        public var changedState: Bool { from != to }
    }

    /// The settings in force.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: ConversationState = .idle
    /// The gates that are open.
    public private(set) var openGates: Set<ConversationGate> = []
    /// Whether the user is speaking in the current listening phase.
    public private(set) var userIsSpeaking = false
    /// When listening gives up if no speech begins.
    public private(set) var listenDeadline: Instant?
    /// Whether a transcript is awaited (the answer to ``Action/transcribe``).
    public private(set) var awaitsTranscript = false
    /// Whether the utterance under way began over a reply: a backchannel in it is dropped, not
    /// answered.
    public private(set) var speechOverReply = false
    /// The state of the reply that is paused (thinking or speaking).
    private var pausedFrom: ConversationState?
    /// How long the speech over the paused reply has lasted, and whether words that are no
    /// backchannel were heard in it.
    private var interruptingSpeech = Duration.zero
    private var interruptingWords = false
    /// Where the turn being answered came from (listening for a spoken turn; idle, armed or
    /// listening for a typed one); the conversation returns there after the reply.
    private var turnOrigin: ConversationState = .listening

    /// Creates a machine in the idle state with every gate closed.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Applies `event`, returning the transition and its action, or why it was refused.
    public mutating func handle(_ event: Event) -> Result<Transition, Rejection> {
        let before = state
        switch decide(event) {
        case .success(let action):
            return .success(Transition(from: before, to: state, action: action))
        case .failure(let rejection):
            return .failure(rejection)
        }
    }

    private func reject(_ reason: String) -> Result<Action, Rejection> {
        .failure(Rejection(state: state, reason: reason))
    }

    private mutating func decide(_ event: Event) -> Result<Action, Rejection> {
        switch event {
        case .setGate(let gate, let open):
            if open {
                openGates.insert(gate)
                return .success(.none)
            }
            openGates.remove(gate)
            // Losing a required gate (permission revoked, device gone) ends any activity.
            guard configuration.requiredGates.contains(gate), state != .idle, !isError else { return .success(.none) }
            return .success(shutDown())

        case .arm:
            guard state == .idle else { return reject("Only an idle conversation can be armed") }
            let closed = configuration.requiredGates.subtracting(openGates)
            guard closed.isEmpty else {
                return reject("Cannot arm: gate\(closed.count == 1 ? "" : "s") not open: \(closed.map(\.rawValue).sorted().joined(separator: ", "))")
            }
            state = .armed
            return .success(.openAudio)

        case .startListening(let trigger, let now):
            switch state {
            case .armed: break
            case .listening: return reject("Already listening")
            case .thinking, .speaking, .paused: return reject("Still answering the last turn")
            case .idle: return reject("Arm the conversation before listening")
            case .error: return reject("Reset the conversation after its error first")
            }
            guard trigger == .user else { return reject("Listening starts only on a deliberate user action, not an incidental event") }
            return .success(enterListening(at: now).map(Action.scheduleListenTimeout) ?? .none)

        case .stopListening:
            guard state == .listening else { return reject(state == .paused ? "The reply is paused while the user speaks over it" : "Not listening") }
            listenDeadline = nil
            guard userIsSpeaking else {
                state = .armed
                return .success(.stopListening)
            }
            // Push-to-talk released mid-sentence: the utterance ends here and is answered;
            // afterwards the conversation waits, armed.
            userIsSpeaking = false
            state = .thinking
            turnOrigin = .armed
            awaitsTranscript = true
            return .success(.transcribe)

        case .speechStarted(let now):
            switch state {
            case .listening:
                guard !userIsSpeaking else { return reject("Speech has already started") }
                userIsSpeaking = true
                listenDeadline = nil
                return .success(.beginUtterance)
            case .thinking, .speaking:
                // Only a turn spoken while listening can be talked over.
                guard turnOrigin == .listening else { return reject("Not listening, so speech is not expected") }
                guard configuration.allowsBargeIn else { return .success(.none) }  // heard, deliberately ignored
                if configuration.interruption != nil, !awaitsTranscript {
                    // Held, not cut, until the speech proves to be meant.
                    pausedFrom = state
                    state = .paused
                    userIsSpeaking = true
                    speechOverReply = true
                    interruptingSpeech = .zero
                    interruptingWords = false
                    listenDeadline = nil
                    return .success(.pauseReply)
                }
                let cut: ReplyCut = state == .speaking ? .duringPlayback : .beforePlayback
                _ = enterListening(at: now)
                userIsSpeaking = true
                listenDeadline = nil
                awaitsTranscript = false
                return .success(.bargeIn(cut))
            case .paused:
                return reject("Speech has already started over the paused reply")
            default:
                return reject("Not listening, so speech is not expected")
            }

        case .speechEnded:
            if state == .paused {
                guard userIsSpeaking else { return reject("No speech has started") }
                userIsSpeaking = false
                // Too short to be meant: no need to hear its words.
                guard interruptingSpeech >= minimumInterruption else { return .success(resumeReply()) }
                awaitsTranscript = true
                return .success(.transcribe)
            }
            guard state == .listening else { return reject("Not listening, so no speech can end") }
            guard userIsSpeaking else { return reject("No speech has started") }
            userIsSpeaking = false
            state = .thinking
            turnOrigin = .listening
            awaitsTranscript = true
            return .success(.transcribe)

        case .speechLasted(let length):
            guard state == .paused else { return reject("No reply is paused") }
            interruptingSpeech = max(interruptingSpeech, length)
            return .success(confirmInterruption())

        case .partiallyTranscribed(let text):
            guard state == .paused else { return reject("No reply is paused") }
            // Words of speech that has ended come whole with its transcript.
            guard userIsSpeaking, !interruptingWords, !isBackchannel(text) else { return .success(.none) }
            interruptingWords = true
            return .success(confirmInterruption())

        case .resume:
            guard state == .paused else { return reject("No reply is paused") }
            return .success(resumeReply())

        case .transcribed(let text, let now):
            if state == .paused {
                guard awaitsTranscript else { return reject("No utterance is waiting for its transcript") }
                guard interruptingSpeech >= minimumInterruption, !isBackchannel(text) else { return .success(resumeReply()) }
                let cut = pausedCut
                awaitsTranscript = false
                endPause()
                state = .thinking
                turnOrigin = .listening
                return .success(.interruptAndReply(cut, text))
            }
            guard state == .thinking, awaitsTranscript else { return reject("No utterance is waiting for its transcript") }
            awaitsTranscript = false
            let overReply = speechOverReply
            speechOverReply = false
            if text.trimmingWhitespace().isEmpty || (overReply && isBackchannel(text)) {
                // No turn happened: listen on (or wait, armed, after push-to-talk).
                guard turnOrigin == .listening else {
                    state = .armed
                    return .success(.discardUtterance(rescheduleTimeout: nil))
                }
                return .success(.discardUtterance(rescheduleTimeout: enterListening(at: now)))
            }
            return .success(.saveUserTurnAndReply(text))

        case .typed(let text):
            switch state {
            case .idle, .armed: break
            case .listening:
                guard !userIsSpeaking else { return reject("The user is speaking; send the message when the turn has ended") }
            case .thinking, .speaking, .paused: return reject("Still answering the last turn")
            case .error: return reject("Reset the conversation after its error first")
            }
            guard !text.trimmingWhitespace().isEmpty else { return reject("There is no text to send") }
            turnOrigin = state
            listenDeadline = nil
            state = .thinking
            return .success(.saveUserTurnAndReply(text))

        case .toolResults:
            switch state {
            case .idle, .armed: break
            case .listening:
                guard !userIsSpeaking else { return reject("The user is speaking; answer the tool results when the turn has ended") }
            case .thinking, .speaking, .paused: return reject("Still answering the last turn")
            case .error: return reject("Reset the conversation after its error first")
            }
            turnOrigin = state
            listenDeadline = nil
            state = .thinking
            return .success(.saveUserTurnAndReply(""))

        case .replyAudioStarted:
            if state == .paused {
                // Its audio starts held: the host keeps playback paused.
                guard pausedFrom == .thinking else { return reject("The paused reply is playing already") }
                pausedFrom = .speaking
                return .success(.startPlayback)
            }
            guard state == .thinking, !awaitsTranscript else { return reject("No reply is being prepared") }
            state = .speaking
            return .success(.startPlayback)

        case .replyFinished(let now):
            if state == .paused {
                // It ended before the pause took hold (or had nothing to play): the speech over
                // it goes on, and is answered unless it proves a backchannel.
                endPause()
                if awaitsTranscript {
                    state = .thinking
                    turnOrigin = .listening
                } else {
                    state = .listening
                }
                return .success(.finishReply(listenTimeout: nil))
            }
            guard state == .speaking || (state == .thinking && !awaitsTranscript) else { return reject("No reply is in progress") }
            return .success(.finishReply(listenTimeout: returnAfterTurn(at: now)))

        case .cancelReply(let now):
            if state == .paused {
                // Cancelled by the host: the speech over it is the user's next turn.
                let cut = pausedCut
                endPause()
                speechOverReply = false
                if awaitsTranscript {
                    state = .thinking
                    turnOrigin = .listening
                } else {
                    state = .listening
                }
                return .success(.cancelReply(cut, listenTimeout: nil))
            }
            guard state == .thinking || state == .speaking else { return reject("No reply is in progress") }
            let cut: ReplyCut = state == .speaking ? .duringPlayback : .beforePlayback
            awaitsTranscript = false
            return .success(.cancelReply(cut, listenTimeout: returnAfterTurn(at: now)))

        case .listenTimeoutExpired(let now):
            // A timeout that was cancelled or rescheduled meanwhile changes nothing.
            guard state == .listening, !userIsSpeaking, let deadline = listenDeadline, now >= deadline else {
                return .success(.none)
            }
            listenDeadline = nil
            state = .armed
            return .success(.listenTimedOut)

        case .failed(let reason):
            guard !isError else { return reject("Already in the error state") }
            let cleanup = shutDown()
            state = .error(reason)
            return .success(cleanup)

        case .reset:
            guard isError else { return reject("Only an error can be reset") }
            state = .idle
            return .success(.none)

        case .stop:
            guard state != .idle else { return reject("Already idle") }
            return .success(shutDown())
        }
    }

    private var isError: Bool {
        if case .error = state { return true }
        return false
    }

    /// Enters listening, returning the listen deadline if there is one.
    private mutating func enterListening(at now: Instant) -> Instant? {
        state = .listening
        userIsSpeaking = false
        listenDeadline = configuration.listenTimeout.map { now.advanced(by: $0) }
        return listenDeadline
    }

    /// Returns to where the turn came from once it is over, and the listen deadline if the
    /// conversation listens again.
    private mutating func returnAfterTurn(at now: Instant) -> Instant? {
        switch turnOrigin {
        case .listening where configuration.continuous:
            return enterListening(at: now)
        case .idle:
            state = .idle
        default:
            state = .armed
        }
        userIsSpeaking = false
        listenDeadline = nil
        return nil
    }

    /// The shortest speech that may cut a paused reply.
    private var minimumInterruption: Duration { configuration.interruption?.minimumSpeech ?? .zero }

    /// Whether `text` is a backchannel or noise by the interruption rules.
    private func isBackchannel(_ text: String) -> Bool {
        guard let rules = configuration.interruption else { return text.trimmingWhitespace().isEmpty }
        return rules.backchannels.contains(text, language: rules.language)
    }

    /// How the paused reply would be cut.
    private var pausedCut: ReplyCut { pausedFrom == .speaking ? .duringPlayback : .beforePlayback }

    /// Cuts the paused reply if its speech is long enough and has words that are meant.
    private mutating func confirmInterruption() -> Action {
        guard interruptingWords, interruptingSpeech >= minimumInterruption, userIsSpeaking else { return .none }
        let cut = pausedCut
        endPause()
        speechOverReply = false
        state = .listening
        return .interruptReply(cut)
    }

    /// Returns to the paused reply.
    private mutating func resumeReply() -> Action {
        state = pausedFrom ?? .speaking
        endPause()
        speechOverReply = false
        userIsSpeaking = false
        awaitsTranscript = false
        return .resumeReply
    }

    private mutating func endPause() {
        pausedFrom = nil
        interruptingSpeech = .zero
        interruptingWords = false
    }

    /// Goes idle, returning what must be undone for the state being left.
    private mutating func shutDown() -> Action {
        let cut: ReplyCut?
        switch state {
        case .thinking: cut = .beforePlayback
        case .speaking: cut = .duringPlayback
        case .paused: cut = pausedCut
        case .idle, .armed, .listening, .error: cut = nil
        }
        endPause()
        speechOverReply = false
        state = .idle
        userIsSpeaking = false
        listenDeadline = nil
        awaitsTranscript = false
        return .shutDown(cutting: cut)
    }
}
