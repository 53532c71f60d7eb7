/// One message of a conversation, as the journal writes it down, the store keeps it and a
/// server sends it: who wrote it, what was said, heard, corrected or typed, what it carried
/// (images, a structured result) and how the turn went.
///
/// For a spoken user turn, ``rawTranscript`` is what speech-to-text heard, ``editedText`` the
/// person's correction (if any) and ``text`` what went to the model. A typed turn sets
/// ``typedText``. For an assistant reply, ``text`` is what the listener heard; when the user
/// cut the reply short, ``interrupted`` is `true` and ``fullReply`` holds everything the model
/// wrote.
///
/// Function calling adds two kinds of message: an assistant message that calls tools
/// (``toolCalls``, with whatever text the model wrote before the calls, often none), and a
/// tool's result (role ``ChatMessage/Role/tool``: ``text`` is the result, ``toolCallID`` the
/// call it answers, ``toolName`` the function, ``isToolError`` whether it failed).
public struct ConversationMessage: Sendable, Equatable {
    /// Who wrote the message.
    public var role: ChatMessage.Role
    /// The text that went to the model (user) or came from it and was heard (assistant).
    public var text: String
    /// What speech-to-text heard, for a spoken user turn.
    public var rawTranscript: String?
    /// The person's correction of the transcript, when they made one (``text`` holds it too).
    public var editedText: String?
    /// What the person typed, for a turn without voice.
    public var typedText: String?
    /// Images that came with the message, kept with it.
    public var images: [ImageAttachment]
    /// Images the message points to by path or URL, which Parley does not keep.
    public var imageReferences: [String]
    /// The provider that transcribed (user) or answered (assistant), e.g. `"llama.cpp"`.
    public var provider: String?
    /// How long each stage took, in milliseconds, by stage name.
    public var timingsMs: [String: Double]
    /// The language model's accounting (assistant), when known.
    public var usage: Usage?
    /// Whether the user cut the reply short.
    public var interrupted: Bool
    /// For an interrupted reply, everything the model wrote (``text`` holds only what played).
    public var fullReply: String?
    /// The reply as JSON, when it was asked to follow a schema (structured output).
    public var structuredResult: JSONValue?
    /// The tools an assistant message calls, in order (empty for other messages).
    public var toolCalls: [ToolCall]
    /// For a tool's result, the id of the call it answers.
    public var toolCallID: String?
    /// For a tool's result, the name of the function that ran, when known.
    public var toolName: String?
    /// For a tool's result, whether the tool failed (``text`` then says how).
    public var isToolError: Bool
    /// The user's speech for this turn. A journal keeps it only if the user opted in; it is
    /// not part of the encoded form (the store keeps it as a WAV file beside the database).
    public var audio: AudioBuffer?

    /// Creates a message; only the role and the text are required.
    public init(
        role: ChatMessage.Role,
        text: String,
        rawTranscript: String? = nil,
        editedText: String? = nil,
        typedText: String? = nil,
        images: [ImageAttachment] = [],
        imageReferences: [String] = [],
        provider: String? = nil,
        timingsMs: [String: Double] = [:],
        usage: Usage? = nil,
        interrupted: Bool = false,
        fullReply: String? = nil,
        structuredResult: JSONValue? = nil,
        toolCalls: [ToolCall] = [],
        toolCallID: String? = nil,
        toolName: String? = nil,
        isToolError: Bool = false,
        audio: AudioBuffer? = nil
    ) {
        self.role = role
        self.text = text
        self.rawTranscript = rawTranscript
        self.editedText = editedText
        self.typedText = typedText
        self.images = images
        self.imageReferences = imageReferences
        self.provider = provider
        self.timingsMs = timingsMs
        self.usage = usage
        self.interrupted = interrupted
        self.fullReply = fullReply
        self.structuredResult = structuredResult
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.toolName = toolName
        self.isToolError = isToolError
        self.audio = audio
    }

    /// The message as model input: the text as the person meant it (the edited transcript
    /// where there is one), followed by the attached images. An assistant message that calls
    /// tools carries its calls (and no text part when it wrote none); a tool's result carries
    /// the call it answers, the function's name and whether it failed.
    public var chatMessage: ChatMessage {
        if role == .tool {
            return .tool(callID: toolCallID ?? "", name: toolName, content: text, isError: isToolError)
        }
        let wording = role == .user ? editedText ?? text : text
        let leaveOutText = wording.isEmpty && (!images.isEmpty || !toolCalls.isEmpty)
        let parts: [ChatMessage.Part] = (leaveOutText ? [] : [.text(wording)]) + images.map(\.part)
        return ChatMessage(role: role, parts: parts, toolCalls: toolCalls)
    }

    /// Whether the message belongs to a tool exchange: an assistant's calls or a tool's result.
    public var isToolExchange: Bool { role == .tool || !toolCalls.isEmpty }
}

extension ConversationMessage {
    /// `message` as kept: its text, its images, and its part in a tool exchange.
    public init(chat message: ChatMessage) {
        let images = message.parts.compactMap { part -> ImageAttachment? in
            if case .image(let data, let mimeType) = part { ImageAttachment(data: data, mimeType: mimeType) } else { nil }
        }
        self.init(
            role: message.role, text: message.text, images: images, toolCalls: message.toolCalls, toolCallID: message.toolCallID,
            toolName: message.toolName, isToolError: message.isToolError)
    }

    /// A message of a tool exchange as the journal keeps it: an assistant's calls (with the
    /// words it wrote before them) or a tool's result.
    public init(toolExchange message: ChatMessage) {
        self.init(
            role: message.role, text: message.text, toolCalls: message.toolCalls, toolCallID: message.toolCallID,
            toolName: message.toolName, isToolError: message.isToolError)
    }
}
