import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Saves an item to `owner`'s stash; its thread and message must be `owner`'s. When only
    /// the message is given, the thread is taken from it.
    @discardableResult
    public func stash(_ item: NewStashItem, owner: Owner) async throws(StoreError) -> StashItem {
        let date = now()
        return try await transaction { connection in
            var threadID = item.threadID
            if let messageID = item.messageID {
                let rows = try await connection.query(
                    """
                    SELECT message.thread_id FROM message JOIN thread ON thread.id = message.thread_id
                    WHERE message.id = \(messageID) AND thread.owner = \(owner.column)
                    FOR KEY SHARE OF message
                    """, logger: self.logger
                ).collect()
                guard let row = rows.first else { throw StoreError.messageNotFound(messageID) }
                threadID = try threadID ?? row.decode(Int64.self)
            }
            if let threadID {
                let owned = try await connection.query(
                    "SELECT id FROM thread WHERE id = \(threadID) AND owner = \(owner.column) FOR KEY SHARE", logger: self.logger
                ).collect()
                guard !owned.isEmpty else { throw StoreError.threadNotFound(threadID) }
            }
            let rows = try await connection.query(
                """
                INSERT INTO stash_item (owner, created_at, kind, text, thread_id, message_id)
                VALUES (\(owner.column), \(date), \(item.kind), \(item.text), \(threadID), \(item.messageID))
                RETURNING \(unescaped: PostgresRows.stashColumns)
                """, logger: self.logger
            ).collect()
            guard let row = rows.first else { throw StoreError.database(reason: "the stashed item could not be read back") }
            return try PostgresRows.stashItem(row)
        }
    }

    /// `owner`'s stash, newest first.
    public func stashItems(owner: Owner) async throws(StoreError) -> [StashItem] {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.stashColumns) FROM stash_item WHERE owner = \(owner.column) ORDER BY id DESC
            """)
        return try Self.decoding { try rows.map(PostgresRows.stashItem) }
    }

    /// Removes an item from `owner`'s stash.
    public func deleteStashItem(_ id: Int64, owner: Owner) async throws(StoreError) {
        let rows = try await rows("DELETE FROM stash_item WHERE id = \(id) AND owner = \(owner.column) RETURNING id")
        guard !rows.isEmpty else { throw .stashItemNotFound(id) }
    }
}
