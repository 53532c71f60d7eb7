import Foundation
import ParleyCore

/// A message as saved: its id, thread and time, every field of ``NewMessage``, and the kept
/// recording, if any.
public struct StoredMessage: Sendable, Equatable {
    /// The message's id, unique and never reused in its database; ids grow in append order.
    public var id: Int64
    /// The thread that holds the message.
    public var threadID: Int64
    /// When the message was appended.
    public var createdAt: Date
    /// Who wrote the message.
    public var role: MessageRole
    /// What speech-to-text heard, for a spoken user turn.
    public var rawTranscript: String?
    /// The person's correction of the transcript, if any.
    public var editedText: String?
    /// Typed input, for a turn without voice.
    public var typedText: String?
    /// The text that went to the model (user) or came from it and was played (assistant).
    public var text: String
    /// Attached images, as paths or URLs.
    public var imageReferences: [String]
    /// Who answered (assistant) or who transcribed (user).
    public var provider: String?
    /// How long each stage took, in milliseconds, by stage name.
    public var timingsMs: [String: Double]
    /// The tokens the reply cost, when known.
    public var usage: Usage?
    /// Whether barge-in cut the reply short.
    public var interrupted: Bool
    /// For an interrupted reply, everything the model wrote.
    public var fullReply: String?
    /// The path of the kept recording of this turn, if one was attached.
    public var audioPath: String?

    /// Creates a stored message from the message's content and where it was saved.
    public init(id: Int64, threadID: Int64, createdAt: Date, message: NewMessage, audioPath: String? = nil) {
        self.id = id
        self.threadID = threadID
        self.createdAt = createdAt
        self.role = message.role
        self.rawTranscript = message.rawTranscript
        self.editedText = message.editedText
        self.typedText = message.typedText
        self.text = message.text
        self.imageReferences = message.imageReferences
        self.provider = message.provider
        self.timingsMs = message.timingsMs
        self.usage = message.usage
        self.interrupted = message.interrupted
        self.fullReply = message.fullReply
        self.audioPath = audioPath
    }

    /// The message's content, without where it was saved.
    public var content: NewMessage {
        NewMessage(
            role: role, text: text, rawTranscript: rawTranscript, editedText: editedText,
            typedText: typedText, imageReferences: imageReferences, provider: provider,
            timingsMs: timingsMs, usage: usage, interrupted: interrupted, fullReply: fullReply)
    }

    /// The transcript as the person meant it: the edited text when there is one, otherwise
    /// the raw transcript (`nil` for a turn that was not spoken).
    public var transcript: String? { editedText ?? rawTranscript }
}
