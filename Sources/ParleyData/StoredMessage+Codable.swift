import Foundation
import ParleyCore

/// A stored message encodes as its content (``ConversationMessage``'s snake_case keys) with
/// `id`, `thread_id`, `created_at` and `audio_path` beside them, in one flat object.
extension StoredMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case id
        case threadID = "thread_id"
        case createdAt = "created_at"
        case audioPath = "audio_path"
    }

    /// Decodes a message, e.g. from an export.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int64.self, forKey: .id),
            threadID: try container.decode(Int64.self, forKey: .threadID),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            message: try ConversationMessage(from: decoder),
            audioPath: try container.decodeIfPresent(String.self, forKey: .audioPath))
    }

    /// Encodes every field; absent optional values are written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(audioPath, forKey: .audioPath)
        try content.encode(to: encoder)
    }
}
