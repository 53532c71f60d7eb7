import Foundation

/// One conversation of a ``ConversationExport``: the thread's fields, its message count and
/// preview, its settings and all its messages in order.
public struct ExportedThread: Sendable, Equatable, Codable {
    /// The thread's id.
    public var id: Int64
    /// The thread's title, if any.
    public var title: String?
    /// When the thread was created.
    public var createdAt: Date
    /// When the thread was last active.
    public var updatedAt: Date
    /// How many messages the thread holds.
    public var messageCount: Int
    /// A one-line preview of the last user or assistant message (not a tool's result, nor an
    /// assistant's calls without text).
    public var preview: String?
    /// How the conversation talks to its model.
    public var settings: ThreadSettings
    /// The messages, in order, with raw and edited transcripts.
    public var messages: [StoredMessage]

    /// Creates an exported thread from a thread and its messages.
    public init(thread: StoredThread, messages: [StoredMessage]) {
        id = thread.id
        title = thread.title
        createdAt = thread.createdAt
        updatedAt = thread.updatedAt
        settings = thread.settings
        messageCount = messages.count
        preview = messages.last { $0.role != .system && $0.role != .tool && !($0.text.isEmpty && $0.content.isToolExchange) }
            .map { ThreadSummary.preview(of: $0.text) }
        self.messages = messages
    }

    /// The thread without its messages.
    public var thread: StoredThread {
        StoredThread(id: id, title: title, createdAt: createdAt, updatedAt: updatedAt, settings: settings)
    }

    enum CodingKeys: String, CodingKey {
        case id, title, preview, settings, messages
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case messageCount = "message_count"
    }

    /// Encodes every field; a missing title or preview is written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(messageCount, forKey: .messageCount)
        try container.encode(preview, forKey: .preview)
        try container.encode(settings, forKey: .settings)
        try container.encode(messages, forKey: .messages)
    }
}
