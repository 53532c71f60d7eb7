import Foundation
import ParleyCore

/// A message as saved: its id, thread and time, its content (every field of
/// ``ConversationMessage``, readable directly, e.g. `message.rawTranscript`), and the kept
/// recording, if any. The content's `audio` is `nil`: the recording is the file at
/// ``audioPath``.
@dynamicMemberLookup
public struct StoredMessage: Sendable, Equatable {
    /// The message's id, unique and never reused in its database; ids grow in append order.
    public var id: Int64
    /// The thread that holds the message.
    public var threadID: Int64
    /// When the message was appended.
    public var createdAt: Date
    /// The message's content, without where it was saved.
    public var content: ConversationMessage
    /// The path of the kept recording of this turn, if one was attached.
    public var audioPath: String?

    /// Creates a stored message from the message's content and where it was saved.
    public init(id: Int64, threadID: Int64, createdAt: Date, message: ConversationMessage, audioPath: String? = nil) {
        self.id = id
        self.threadID = threadID
        self.createdAt = createdAt
        self.content = message
        self.audioPath = audioPath
    }

    /// A field of the content (`role`, `text`, `rawTranscript`, `editedText`, …).
    public subscript<Value>(dynamicMember field: WritableKeyPath<ConversationMessage, Value>) -> Value {
        get { content[keyPath: field] }
        set { content[keyPath: field] = newValue }
    }

    /// The transcript as the person meant it: the edited text when there is one, otherwise
    /// the raw transcript (`nil` for a turn that was not spoken).
    public var transcript: String? { content.editedText ?? content.rawTranscript }
}
