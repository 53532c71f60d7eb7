/// The rules of a voice conversation as a pure value: feed it events, carry out the actions
/// it returns. It performs no I/O and reads no clock; time arrives inside the events, so
/// tests drive it with any `InstantProtocol` (a manual clock's instants included).
///
/// Events that make no sense in the current state are rejected with a reason and change
/// nothing.
public struct ConversationStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Swift.Duration {
    /// Something that happened to the conversation.
    public enum Event: Sendable, Equatable {
        /// The host opened or closed a gate.
        case setGate(ConversationGate, open: Bool)
        /// Make the conversation ready to listen (idle → armed).
        case arm
        /// Start listening (armed → listening).
        case startListening(ListenTrigger, at: Instant)
        /// The VAD heard speech begin.
        case speechStarted(at: Instant)
        /// The VAD heard the user stop (the configured silence has passed).
        case speechEnded(at: Instant)
        /// The turn's final transcript is ready (empty when no words were recognised).
        case transcribed(String, at: Instant)
        /// The first audio of the reply is ready to play.
        case replyAudioStarted
        /// The reply was played to its end (or generated with nothing to play).
        case replyFinished(at: Instant)
        /// Time passed while listening for speech that never came.
        case tick(at: Instant)
        /// A stage failed for good.
        case failed(String)
        /// Leave the error state.
        case reset
        /// Stop everything and close the microphone.
        case stop
    }

    /// What the host must do.
    public enum Action: Sendable, Equatable {
        /// Open the audio input and start the VAD.
        case openAudio
        /// Close the audio input.
        case closeAudio
        /// Start collecting the user's utterance.
        case beginUtterance
        /// Transcribe the finished utterance.
        case transcribe
        /// Nothing was recognised: drop the utterance.
        case discardUtterance
        /// Persist the user's turn with this text.
        case saveUserTurn(String)
        /// Generate and speak the reply.
        case generateReply
        /// Start playing the reply's audio.
        case startPlayback
        /// Stop generating and synthesizing the reply.
        case cancelReply
        /// Stop playback now and keep only what was heard.
        case stopPlayback
        /// Persist the assistant's turn; `interrupted` when the user cut it short.
        case saveAssistantTurn(interrupted: Bool)
        /// Listening gives up at this instant if no speech has begun.
        case scheduleListenTimeout(Instant)
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
        /// What the host must do, in order.
        public var actions: [Action]

        /// Whether the state changed.
        public var changedState: Bool { from != to }
    }

    /// Tuning of the machine.
    public struct Configuration: Sendable, Equatable {
        /// The gates that must be open before arming.
        public var requiredGates: Set<ConversationGate>
        /// Listening with no speech for this long returns to armed; `nil` listens forever.
        public var listenTimeout: Duration?
        /// Whether user speech during thinking or speaking interrupts the reply.
        public var allowsBargeIn: Bool
        /// Whether the conversation listens again after each reply (a conversation loop) or
        /// returns to armed (push-to-talk).
        public var continuous: Bool

        /// Creates a configuration; the defaults suit a hands-free conversation loop.
        public init(requiredGates: Set<ConversationGate> = Set(ConversationGate.allCases), listenTimeout: Duration? = nil,
                    allowsBargeIn: Bool = true, continuous: Bool = true) {
            self.requiredGates = requiredGates
            self.listenTimeout = listenTimeout
            self.allowsBargeIn = allowsBargeIn
            self.continuous = continuous
        }
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

    /// Creates a machine in the idle state with every gate closed.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Applies `event`, returning the transition and its actions, or why it was refused.
    public mutating func handle(_ event: Event) -> Result<Transition, Rejection> {
        let before = state
        switch decide(event) {
        case .success(let actions):
            return .success(Transition(from: before, to: state, actions: actions))
        case .failure(let rejection):
            return .failure(rejection)
        }
    }

    private func reject(_ reason: String) -> Result<[Action], Rejection> {
        .failure(Rejection(state: state, reason: reason))
    }

    private mutating func decide(_ event: Event) -> Result<[Action], Rejection> {
        switch event {
        case .setGate(let gate, let open):
            if open {
                openGates.insert(gate)
                return .success([])
            }
            openGates.remove(gate)
            // Losing a required gate (permission revoked, device gone) ends any activity.
            guard configuration.requiredGates.contains(gate), state != .idle, !isError else { return .success([]) }
            return .success(shutDown())

        case .arm:
            guard state == .idle else { return reject("Only an idle conversation can be armed") }
            let closed = configuration.requiredGates.subtracting(openGates)
            guard closed.isEmpty else {
                return reject("Cannot arm: gate\(closed.count == 1 ? "" : "s") not open: \(closed.map(\.rawValue).sorted().joined(separator: ", "))")
            }
            state = .armed
            return .success([.openAudio])

        case .startListening(let trigger, let now):
            switch state {
            case .armed: break
            case .listening: return reject("Already listening")
            case .thinking, .speaking: return reject("Still answering the last turn")
            case .idle: return reject("Arm the conversation before listening")
            case .error: return reject("Reset the conversation after its error first")
            }
            guard trigger == .user else { return reject("Listening starts only on a deliberate user action, not an incidental event") }
            return .success(enterListening(at: now))

        case .speechStarted(let now):
            switch state {
            case .listening:
                guard !userIsSpeaking else { return reject("Speech has already started") }
                userIsSpeaking = true
                listenDeadline = nil
                return .success([.beginUtterance])
            case .thinking, .speaking:
                guard configuration.allowsBargeIn else { return .success([]) }  // heard, deliberately ignored
                let wasSpeaking = state == .speaking
                _ = enterListening(at: now)
                userIsSpeaking = true
                listenDeadline = nil
                var actions: [Action] = [.cancelReply]
                if wasSpeaking { actions += [.stopPlayback, .saveAssistantTurn(interrupted: true)] }
                return .success(actions + [.beginUtterance])
            default:
                return reject("Not listening, so speech is not expected")
            }

        case .speechEnded:
            guard state == .listening else { return reject("Not listening, so no speech can end") }
            guard userIsSpeaking else { return reject("No speech has started") }
            userIsSpeaking = false
            state = .thinking
            return .success([.transcribe])

        case .transcribed(let text, let now):
            guard state == .thinking else { return reject("No utterance is waiting for its transcript") }
            if text.trimmingWhitespace().isEmpty {
                state = .listening
                return .success([.discardUtterance] + listenTimeoutActions(from: now))
            }
            return .success([.saveUserTurn(text), .generateReply])

        case .replyAudioStarted:
            guard state == .thinking else { return reject("No reply is being prepared") }
            state = .speaking
            return .success([.startPlayback])

        case .replyFinished(let now):
            guard state == .thinking || state == .speaking else { return reject("No reply is in progress") }
            if configuration.continuous {
                return .success([.saveAssistantTurn(interrupted: false)] + enterListening(at: now))
            }
            state = .armed
            return .success([.saveAssistantTurn(interrupted: false)])

        case .tick(let now):
            guard state == .listening, !userIsSpeaking, let deadline = listenDeadline, now >= deadline else {
                return .success([])
            }
            listenDeadline = nil
            state = .armed
            return .success([])

        case .failed(let reason):
            guard !isError else { return reject("Already in the error state") }
            let cleanup = shutDown()
            state = .error(reason)
            return .success(cleanup)

        case .reset:
            guard isError else { return reject("Only an error can be reset") }
            state = .idle
            return .success([])

        case .stop:
            guard state != .idle else { return reject("Already idle") }
            return .success(shutDown())
        }
    }

    private var isError: Bool {
        if case .error = state { return true }
        return false
    }

    private mutating func enterListening(at now: Instant) -> [Action] {
        state = .listening
        userIsSpeaking = false
        return listenTimeoutActions(from: now)
    }

    private mutating func listenTimeoutActions(from now: Instant?) -> [Action] {
        guard let timeout = configuration.listenTimeout, let now else {
            listenDeadline = nil
            return []
        }
        let deadline = now.advanced(by: timeout)
        listenDeadline = deadline
        return [.scheduleListenTimeout(deadline)]
    }

    /// Goes idle, returning what must be undone for the state being left.
    private mutating func shutDown() -> [Action] {
        var actions: [Action] = []
        switch state {
        case .thinking: actions = [.cancelReply, .closeAudio]
        case .speaking: actions = [.cancelReply, .stopPlayback, .saveAssistantTurn(interrupted: true), .closeAudio]
        case .armed, .listening: actions = [.closeAudio]
        case .idle, .error: actions = []
        }
        state = .idle
        userIsSpeaking = false
        listenDeadline = nil
        return actions
    }
}
