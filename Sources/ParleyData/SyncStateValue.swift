import Foundation

/// One value of an owner's sync state (see ``ConversationStoring/syncState(_:owner:)``), with
/// when it was last saved. The value may be a secret: its description leaves it out.
public struct SyncStateValue: Sendable, Equatable, CustomStringConvertible {
    /// The key, e.g. `google.drive.page-token`.
    public var key: String
    /// The value saved under the key.
    public var value: String
    /// When the value was saved.
    public var updatedAt: Date

    /// Creates a sync state value.
    public init(key: String, value: String, updatedAt: Date) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }

    /// The key, without the value.
    public var description: String { "\(key) (\(value.count) characters)" }
}
