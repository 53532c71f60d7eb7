/// One message of a conversation as it is written down at a turn boundary.
public typealias JournalEntry = ConversationMessage

/// Where a conversation is written down, durably, at each turn boundary: the user's turn as
/// soon as its transcript is final (before the reply is generated), the assistant's when it
/// has been played or interrupted. `ParleyStore` implements it on SQLite.
public protocol ConversationJournal: Sendable {
    /// Writes `entry`; when this returns, the entry survives a crash of the process.
    func record(_ entry: JournalEntry) async throws
}
