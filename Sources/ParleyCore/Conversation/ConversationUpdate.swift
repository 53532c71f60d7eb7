/// Something a conversation reports as it happens, for a host app's UI or a log.
public enum ConversationUpdate: Sendable, Equatable {
    /// The state machine moved.
    case transition(from: ConversationState, to: ConversationState)
    /// An event was refused (the reason says why); nothing changed.
    case rejected(String)
    /// The user began to speak, this many seconds into the audio received (the speech's
    /// padding included); a reply in progress is being cut short if barge-in is on.
    case speechStarted(at: Double)
    /// The user's utterance ended this many seconds into the audio received (the silence
    /// that ended it is not counted), and is being transcribed.
    case speechStopped(at: Double)
    /// A provisional transcript of the speech so far.
    case partialTranscript(String)
    /// The final transcript of the user's turn.
    case finalTranscript(String)
    /// The speech over the paused reply was no interruption (a backchannel or a noise): the
    /// reply resumes where it paused, and nothing of the speech is a turn. Broadcast before
    /// the transition out of ``ConversationState/paused``.
    case replyResumed
    /// The speech over the paused reply is an interruption: the reply was cut (its heard part
    /// reported in a ``turn(_:)`` before this, if any was heard) and the speech is the user's
    /// turn.
    case replyInterrupted
    /// A piece of the reply's text, as the model writes it.
    case replyText(String)
    /// A turn is complete (answered, or interrupted).
    case turn(TurnResult)
    /// The level of the latest input audio (the RMS of one VAD frame, 0 for silence to 1
    /// for full scale), for a meter; one per frame while the audio is open.
    case audioLevel(Float)
}
