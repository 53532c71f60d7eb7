/// Why a conversation could not do what was asked.
public enum ConversationFailure: Error, Equatable, CustomStringConvertible {
    /// The audio is silent, or no stretch of it sounded like speech.
    case noSpeech(duration: Double)
    /// Speech was found but the transcriber heard no words in it.
    case nothingTranscribed
    /// A run was started while another one was feeding the session.
    case alreadyRunning
    /// The session was closed.
    case closed

    public var description: String {
        switch self {
        case .noSpeech(let duration):
            return String(format: "No speech was found in the %.1f s of audio; check the recording level or the file.", duration)
        case .nothingTranscribed:
            return "Speech was detected but no words could be recognised in it."
        case .alreadyRunning:
            return "The conversation is already running over another audio stream; wait for that run to end."
        case .closed:
            return "The conversation was closed; start a new one."
        }
    }
}
