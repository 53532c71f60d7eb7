/// Where a voice conversation stands.
///
/// `idle → armed → listening → thinking → speaking → listening …`, and `error` from anywhere.
/// With ``ConversationRules/interruption``, speech over a reply pauses it (`paused`) until the
/// speech is found to be a backchannel (back to `thinking` or `speaking`) or an interruption.
/// While `listening`, the microphone is open and the VAD decides when the user has finished.
public enum ConversationState: Sendable, Equatable, CustomStringConvertible {
    /// Nothing is open.
    case idle
    /// The gates are open and audio is ready; waiting for a deliberate start.
    case armed
    /// Capturing the user's speech (``ConversationStateMachine/userIsSpeaking`` tells whether
    /// speech has begun).
    case listening
    /// The turn has ended: transcribing, then generating the reply.
    case thinking
    /// The reply is being played.
    case speaking
    /// The user spoke over the reply: it is held (playback paused) until the speech proves to
    /// be an interruption (the reply is cut) or a backchannel or noise (it resumes).
    case paused
    /// Something failed; `reset` returns to idle.
    case error(String)

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .armed: return "armed"
        case .listening: return "listening"
        case .thinking: return "thinking"
        case .speaking: return "speaking"
        case .paused: return "paused"
        case .error: return "error"
        }
    }
}

/// A condition the host app controls that must hold before the conversation may listen.
public enum ConversationGate: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user granted microphone (or recording) permission.
    case permissionGranted
    /// The audio input is set up and delivering frames.
    case audioReady
}

/// What started listening, so that an accidental gesture (a scroll, a stray touch) is never
/// taken for a request to listen.
public enum ListenTrigger: String, Sendable, Equatable, Codable {
    /// A deliberate start: a tap on the talk button, a hot key, a wake word, or the
    /// conversation loop resuming after a reply.
    case user
    /// An incidental UI event that must not open the microphone.
    case incidental
}
