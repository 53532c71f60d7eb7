import ParleyCore

/// What the orb shows: the conversation's state as a user sees it.
public enum Orb: Sendable, Equatable {
    /// Nothing is happening: waiting for the user (the audio may be open).
    case idle
    /// Hearing the user; `level` (0…1) is the microphone's, for the orb to pulse with.
    case listening(level: Float)
    /// Transcribing and writing the reply.
    case thinking
    /// Playing the reply.
    case speaking
    /// Something failed; the sentence says what.
    case failed(String)

    /// The orb for a conversation in `state` (a level of 0 while listening).
    public init(_ state: ConversationState) {
        switch state {
        case .idle, .armed: self = .idle
        // A reply paused by speech over it: the user is heard, until the reply resumes or is cut.
        case .listening, .paused: self = .listening(level: 0)
        case .thinking: self = .thinking
        case .speaking: self = .speaking
        case .error(let message): self = .failed(message)
        }
    }

    /// A word for it (the orb's accessibility label).
    public var label: String {
        switch self {
        case .idle: return "Idle"
        case .listening: return "Listening"
        case .thinking: return "Thinking"
        case .speaking: return "Speaking"
        case .failed: return "Something went wrong"
        }
    }
}

/// How the user talks.
public enum TalkMode: String, Sendable, Equatable, CaseIterable {
    /// Listening while the button is held; letting go sends what was said.
    case holdToTalk
    /// Listening all the time, turn after turn; speaking over a reply interrupts it.
    case handsFree

    /// Its name in the app.
    public var title: String {
        switch self {
        case .holdToTalk: return "Hold to talk"
        case .handsFree: return "Hands-free"
        }
    }
}
