import Foundation

/// The SQLite store is the default ``ConversationStoring``: its methods are synchronous (each a
/// transaction on the file) and serve the protocol's asynchronous requirements as they are.
extension ConversationStore: ConversationStoring {
    /// The database file's path.
    public var location: String { url.path }

    /// The bytes of the message's kept recording, read from its file; `nil` when the message
    /// has none or the file is gone.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)`` when no message of `owner`'s threads has
    ///   the id.
    public func audio(message: Int64, owner: Owner = .local) throws(StoreError) -> Data? {
        guard let stored = try self.message(message, owner: owner) else { throw .messageNotFound(message) }
        return stored.audioPath.flatMap { FileManager.default.contents(atPath: $0) }
    }

    /// Nothing to release early: the file closes when the last reference to the store goes.
    public func close() async {}
}
