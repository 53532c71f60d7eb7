import Foundation
import GRDB

extension ConversationStore {
    /// One of `owner`'s conversations, or all of them, with every message, as a value.
    ///
    /// - Parameter thread: The thread to export, or `nil` for all of `owner`'s threads (most
    ///   recently active first).
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread `thread`.
    public func exported(thread: Int64?, owner: Owner = .local) throws(StoreError) -> ConversationExport {
        try read { db in
            if let thread {
                let record = try Self.fetchThread(db, id: thread, owner: owner)
                let messages = try Self.fetchMessages(db, thread: thread)
                return ConversationExport(threads: [ExportedThread(thread: try record.stored(), messages: messages)])
            }
            return ConversationExport(threads: try Self.exportedThreads(db, owner: owner, newestFirst: true))
        }
    }

    /// All of `owner`'s threads with every message: most recently active first, or in the
    /// order they were created.
    static func exportedThreads(_ db: Database, owner: Owner, newestFirst: Bool) throws -> [ExportedThread] {
        let id = Column(ThreadRecord.CodingKeys.id)
        let threads =
            try ThreadRecord
            .filter(Column(ThreadRecord.CodingKeys.owner) == owner.id)
            .order(newestFirst ? [Column(ThreadRecord.CodingKeys.updatedAt).desc, id.desc] : [id.asc])
            .fetchAll(db)
        let images = try MessageImageRecord.images(db, owner: owner)
        let messages = try MessageRecord.fetchAll(
            db,
            sql: """
                SELECT message.* FROM message JOIN thread ON thread.id = message.thread_id
                WHERE thread.owner IS ? ORDER BY message.thread_id, message.id
                """, arguments: [owner.id]
        )
        .map { try $0.stored(images: images[$0.id ?? -1] ?? []) }
        let byThread = Dictionary(grouping: messages, by: \.threadID)
        return try threads.map { record in
            let stored = try record.stored()
            return ExportedThread(thread: stored, messages: byThread[stored.id] ?? [])
        }
    }

    /// One of `owner`'s conversations, or all of them, as JSON (sorted keys, pretty printed,
    /// snake_case keys, ISO-8601 dates): `{"threads":[{…thread…, "settings":{…}, "messages":[…]}]}`.
    ///
    /// - Parameter thread: The thread to export, or `nil` for all of `owner`'s threads.
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread `thread`.
    public func export(thread: Int64?, owner: Owner = .local) throws(StoreError) -> Data {
        let export = try exported(thread: thread, owner: owner)
        do {
            return try export.jsonData()
        } catch {
            throw .database(reason: "the export could not be encoded as JSON: \(error)")
        }
    }
}
