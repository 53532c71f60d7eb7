import Foundation

/// A saved item of the stash. It outlives the conversation it came from: deleting that thread
/// or message clears ``threadID`` and ``messageID`` but keeps the item.
public struct StashItem: Sendable, Equatable, Codable {
    /// The item's id.
    public var id: Int64
    /// When the item was stashed.
    public var createdAt: Date
    /// What the item is, e.g. `"reply"`, `"transcript"` or `"note"`.
    public var kind: String
    /// The saved text.
    public var text: String
    /// The thread the item came from, while that thread exists.
    public var threadID: Int64?
    /// The message the item came from, while that message exists.
    public var messageID: Int64?

    /// Creates a stash item value.
    public init(id: Int64, createdAt: Date, kind: String, text: String, threadID: Int64?, messageID: Int64?) {
        self.id = id
        self.createdAt = createdAt
        self.kind = kind
        self.text = text
        self.threadID = threadID
        self.messageID = messageID
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, text
        case createdAt = "created_at"
        case threadID = "thread_id"
        case messageID = "message_id"
    }

    /// Encodes every field; missing thread and message ids are written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(kind, forKey: .kind)
        try container.encode(text, forKey: .text)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(messageID, forKey: .messageID)
    }
}
