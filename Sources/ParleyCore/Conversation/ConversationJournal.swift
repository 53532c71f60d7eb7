/// One message of a conversation as it is written down at a turn boundary.
public struct JournalEntry: Sendable, Equatable {
    /// Who spoke.
    public var role: ChatMessage.Role
    /// The text that went to the model (user) or that the listener heard (assistant).
    public var text: String
    /// What speech-to-text heard, for a spoken user turn.
    public var rawTranscript: String?
    /// The user's correction of the transcript, when they made one (``text`` holds it too).
    public var editedText: String?
    /// The provider that transcribed (user) or answered (assistant).
    public var provider: String?
    /// Stage timings in milliseconds.
    public var timingsMs: [String: Double]
    /// The language model's accounting (assistant).
    public var usage: Usage?
    /// Whether the user cut the reply short.
    public var interrupted: Bool
    /// For an interrupted reply, everything the model had written.
    public var fullReply: String?
    /// The user's speech for this turn (a journal keeps it only if the user opted in).
    public var audio: AudioBuffer?

    /// Creates an entry.
    public init(role: ChatMessage.Role, text: String, rawTranscript: String? = nil, editedText: String? = nil, provider: String? = nil,
                timingsMs: [String: Double] = [:], usage: Usage? = nil, interrupted: Bool = false, fullReply: String? = nil,
                audio: AudioBuffer? = nil) {
        self.role = role
        self.text = text
        self.rawTranscript = rawTranscript
        self.editedText = editedText
        self.provider = provider
        self.timingsMs = timingsMs
        self.usage = usage
        self.interrupted = interrupted
        self.fullReply = fullReply
        self.audio = audio
    }
}

/// Where a conversation is written down, durably, at each turn boundary: the user's turn as
/// soon as its transcript is final (before the reply is generated), the assistant's when it
/// has been played or interrupted. `ParleyStore` implements it on SQLite.
public protocol ConversationJournal: Sendable {
    /// Writes `entry`; when this returns, the entry survives a crash of the process.
    func record(_ entry: JournalEntry) async throws
}
