import ParleyCore

/// A message to append to a thread: what was said or typed, what went to or came from the
/// model, and how the turn went.
///
/// For a spoken user turn, ``rawTranscript`` is what speech-to-text heard, ``editedText`` the
/// person's correction (if any) and ``text`` what was sent to the model. For an assistant
/// reply, ``text`` is what was actually spoken; when barge-in cut the reply, ``interrupted`` is
/// `true` and ``fullReply`` holds everything the model wrote.
public struct NewMessage: Sendable, Equatable {
    /// Who wrote the message.
    public var role: MessageRole
    /// What speech-to-text heard, for a spoken user turn.
    public var rawTranscript: String?
    /// The person's correction of the transcript before sending, if any.
    public var editedText: String?
    /// Typed input, for a turn without voice.
    public var typedText: String?
    /// The text that went to the model (user) or came from it and was played (assistant).
    public var text: String
    /// Attached images, as paths or URLs.
    public var imageReferences: [String]
    /// Who answered (assistant) or who transcribed (user), e.g. `"llama.cpp"`.
    public var provider: String?
    /// How long each stage took, in milliseconds, by stage name.
    public var timingsMs: [String: Double]
    /// The tokens the reply cost, when known.
    public var usage: Usage?
    /// Whether barge-in cut the reply short.
    public var interrupted: Bool
    /// For an interrupted reply, everything the model wrote (``text`` holds only what played).
    public var fullReply: String?

    /// Creates a message; only the role and the text are required.
    public init(
        role: MessageRole,
        text: String,
        rawTranscript: String? = nil,
        editedText: String? = nil,
        typedText: String? = nil,
        imageReferences: [String] = [],
        provider: String? = nil,
        timingsMs: [String: Double] = [:],
        usage: Usage? = nil,
        interrupted: Bool = false,
        fullReply: String? = nil
    ) {
        self.role = role
        self.text = text
        self.rawTranscript = rawTranscript
        self.editedText = editedText
        self.typedText = typedText
        self.imageReferences = imageReferences
        self.provider = provider
        self.timingsMs = timingsMs
        self.usage = usage
        self.interrupted = interrupted
        self.fullReply = fullReply
    }
}
