import Foundation
import GRDB

extension ConversationStore {
    /// One conversation, or all of them, with every message, as a value.
    ///
    /// - Parameter thread: The thread to export, or `nil` for all threads (most recently
    ///   active first).
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `thread` does not exist.
    public func exported(thread: Int64?) throws(StoreError) -> ConversationExport {
        try read { db in
            if let thread {
                let record = try Self.fetchThread(db, id: thread)
                let messages = try Self.fetchMessages(db, thread: thread)
                return ConversationExport(threads: [ExportedThread(thread: try record.stored(), messages: messages)])
            }
            let threads = try ThreadRecord
                .order(Column(ThreadRecord.CodingKeys.updatedAt).desc, Column(ThreadRecord.CodingKeys.id).desc)
                .fetchAll(db)
            let images = try MessageImageRecord.images(db, thread: nil)
            let messages = try MessageRecord
                .order(MessageRecord.Columns.threadID, MessageRecord.Columns.id)
                .fetchAll(db)
                .map { try $0.stored(images: images[$0.id ?? -1] ?? []) }
            let byThread = Dictionary(grouping: messages, by: \.threadID)
            return ConversationExport(threads: try threads.map { record in
                let stored = try record.stored()
                return ExportedThread(thread: stored, messages: byThread[stored.id] ?? [])
            })
        }
    }

    /// One conversation, or all of them, as JSON (sorted keys, pretty printed, snake_case keys,
    /// ISO-8601 dates): `{"threads":[{…thread…, "settings":{…}, "messages":[…]}]}`.
    ///
    /// - Parameter thread: The thread to export, or `nil` for all threads.
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `thread` does not exist.
    public func export(thread: Int64?) throws(StoreError) -> Data {
        let export = try exported(thread: thread)
        do {
            return try export.jsonData()
        } catch {
            throw .database(reason: "the export could not be encoded as JSON: \(error)")
        }
    }
}
