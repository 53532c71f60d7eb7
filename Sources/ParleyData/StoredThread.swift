import Foundation

/// A conversation as saved: its id, optional title, when it began and was last active, and
/// its settings.
public struct StoredThread: Sendable, Equatable, Codable {
    /// The thread's id, unique and never reused in its database.
    public var id: Int64
    /// A title for lists, or `nil` when none was given.
    public var title: String?
    /// When the thread was created.
    public var createdAt: Date
    /// When a message was last appended (the creation time until then).
    public var updatedAt: Date
    /// How the conversation talks to its model.
    public var settings: ThreadSettings

    /// Creates a thread value.
    public init(id: Int64, title: String?, createdAt: Date, updatedAt: Date, settings: ThreadSettings) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.settings = settings
    }

    enum CodingKeys: String, CodingKey {
        case id, title, settings
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Encodes every field; a missing title is written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(settings, forKey: .settings)
    }
}
