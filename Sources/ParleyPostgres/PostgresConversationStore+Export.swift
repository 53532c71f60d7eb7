import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// One of `owner`'s conversations with every message, or all of them (most recently active
    /// first), read from one snapshot.
    public func exported(thread: Int64?, owner: Owner) async throws(StoreError) -> ConversationExport {
        try await transaction(readOnly: true) { connection in
            let threadRows: [PostgresRow]
            let messages: [StoredMessage]
            if let thread {
                threadRows = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresRows.threadColumns) FROM thread WHERE id = \(thread) AND owner = \(owner.column)
                    """, logger: self.logger
                ).collect()
                guard !threadRows.isEmpty else { throw StoreError.threadNotFound(thread) }
                messages = try await Self.messages(connection, where: "message.thread_id = \(thread)", logger: self.logger)
            } else {
                threadRows = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresRows.threadColumns) FROM thread WHERE owner = \(owner.column)
                    ORDER BY updated_at DESC, id DESC
                    """, logger: self.logger
                ).collect()
                messages = try await Self.messages(connection, where: "thread.owner = \(owner.column)", logger: self.logger)
            }
            let byThread = Dictionary(grouping: messages, by: \.threadID)
            return ConversationExport(
                threads: try threadRows.map { row in
                    let stored = try PostgresRows.thread(row)
                    return ExportedThread(thread: stored, messages: byThread[stored.id] ?? [])
                })
        }
    }
}
