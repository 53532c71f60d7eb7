import Foundation

/// A conversation store that several server instances share (PostgreSQL, in ParleyPostgres):
/// beside the conversations, what every instance spent of each key's rate limits per minute, the
/// claims on threads a response is being written into, and the copy of a SQLite store into it.
/// The runtime opens one from a ``DatabaseURL``; the server and the command line use it through
/// this protocol.
public protocol SharedConversationStoring: ConversationStoring {
    /// Adds what one instance spent of `owner`'s limits in the minute `minute` (Unix seconds
    /// / 60) to what every instance spent then.
    func addSpending(owner: Owner, minute: Int64, requests: Int, tokens: Int) async throws
    /// What every instance has spent in the minute `minute`, per key.
    func spending(minute: Int64) async throws -> [Owner: (requests: Int, tokens: Int)]
    /// Forgets the spending of minutes before `minute`.
    func forgetSpending(before minute: Int64) async throws
    /// Claims `thread` for a response being written into it: `false` when another instance (or
    /// this one) holds it. A claim older than `stale` (its instance died mid-response) is taken
    /// over.
    func claimThread(_ thread: Int64, stale: Duration) async throws -> Bool
    /// Releases a thread claimed with ``claimThread(_:stale:)``.
    func releaseThread(_ thread: Int64) async throws
    /// Copies `contents` (a SQLite store's, read with `ConversationStore.contents()`) in, in
    /// one transaction that may take up to `limit`; refused when the database already holds
    /// conversations unless `intoNonEmpty`.
    @discardableResult
    func importContents(_ contents: StoreContents, intoNonEmpty: Bool, within limit: Duration) async throws(StoreError) -> ImportedContents
}
