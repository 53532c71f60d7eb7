import Foundation
import ParleyData

/// A thread with its messages, as `GET /v1/threads/{id}` sends it: the fields of the store's
/// export (``ExportedThread``: id, title, dates, message count, preview, settings), with each
/// message as a ``MessageDocument``.
struct ThreadDocument: Encodable, Sendable {
    var thread: ExportedThread

    enum CodingKeys: String, CodingKey {
        case id, title, preview, settings, messages
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case messageCount = "message_count"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(thread.id, forKey: .id)
        try container.encode(thread.title, forKey: .title)
        try container.encode(thread.createdAt, forKey: .createdAt)
        try container.encode(thread.updatedAt, forKey: .updatedAt)
        try container.encode(thread.messageCount, forKey: .messageCount)
        try container.encode(thread.preview, forKey: .preview)
        try container.encode(thread.settings, forKey: .settings)
        try container.encode(thread.messages.map(MessageDocument.init), forKey: .messages)
    }
}
