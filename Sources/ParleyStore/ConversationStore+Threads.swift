import Foundation
import GRDB

extension ConversationStore {
    /// Starts a conversation that belongs to `owner`.
    public func createThread(title: String?, settings: ThreadSettings, owner: Owner = .local) throws(StoreError) -> StoredThread {
        try write { db in
            var record = ThreadRecord(title: title, settings: settings, date: try db.transactionDate, owner: owner)
            try record.insert(db)
            return try Self.fetchThread(db, id: record.id ?? -1, owner: owner).stored()
        }
    }

    /// Replaces a conversation's settings.
    ///
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the id.
    public func updateSettings(_ settings: ThreadSettings, thread: Int64, owner: Owner = .local) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "UPDATE thread SET backend = ?, model_preset = ?, system_prompt = ?, max_tokens = ? WHERE id = ? AND owner IS ?",
                arguments: [settings.backend, settings.modelPreset, settings.systemPrompt, settings.maxTokens, thread, owner.id])
            guard db.changesCount > 0 else { throw StoreError.threadNotFound(thread) }
        }
    }

    /// Changes a conversation's title or settings in one transaction: `change` gets the thread
    /// as saved, and its ``StoredThread/title`` and ``StoredThread/settings`` are written back
    /// (its id and dates are not).
    ///
    /// ```swift
    /// try store.updateThread(id) { $0.title = "Groceries"; $0.settings.maxTokens = 64 }
    /// ```
    ///
    /// - Returns: The thread as saved.
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the id.
    @discardableResult
    public func updateThread(_ id: Int64, owner: Owner = .local, _ change: (inout StoredThread) -> Void) throws(StoreError) -> StoredThread {
        try write { db in
            var record = try Self.fetchThread(db, id: id, owner: owner)
            var thread = try record.stored()
            change(&thread)
            record.title = thread.title
            record.settings = thread.settings
            try record.update(db)
            return try record.stored()
        }
    }

    /// `owner`'s conversations, most recently active first, each with its message count and a
    /// preview of its last user or assistant message (not a tool's result, nor an assistant's
    /// calls without text).
    public func threads(owner: Owner = .local) throws(StoreError) -> [ThreadSummary] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT thread.*,
                        (SELECT COUNT(*) FROM message WHERE message.thread_id = thread.id) AS message_count,
                        (SELECT text FROM message WHERE message.thread_id = thread.id AND role NOT IN ('system', 'tool')
                            AND (text <> '' OR tool IS NULL)
                            ORDER BY id DESC LIMIT 1) AS last_text
                    FROM thread
                    WHERE owner IS ?
                    ORDER BY updated_at DESC, id DESC
                    """, arguments: [owner.id])
            return try rows.map { row in
                let lastText: String? = try row.decode(forColumn: "last_text")
                return ThreadSummary(
                    thread: try ThreadRecord(row: row).stored(),
                    messageCount: try row.decode(forColumn: "message_count"),
                    lastMessagePreview: lastText.map(ThreadSummary.preview(of:)))
            }
        }
    }

    /// The conversation with this id, or `nil` when `owner` has none with it.
    public func thread(_ id: Int64, owner: Owner = .local) throws(StoreError) -> StoredThread? {
        try read { db in try ThreadRecord.fetchOne(db, id: id, owner: owner)?.stored() }
    }

    /// A conversation's messages, in the order they were appended.
    ///
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the id.
    public func messages(in thread: Int64, owner: Owner = .local) throws(StoreError) -> [StoredMessage] {
        try read { db in
            guard try ThreadRecord.exists(db, id: thread, owner: owner) else { throw StoreError.threadNotFound(thread) }
            return try Self.fetchMessages(db, thread: thread)
        }
    }

    /// Deletes a conversation with its messages and their images, then removes their kept
    /// audio files. Stashed items that came from it are kept.
    ///
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the id;
    ///   ``StoreError/cannotRemoveAudio(paths:reason:)`` when the conversation was deleted but
    ///   some of its audio files could not be removed.
    public func deleteThread(_ id: Int64, owner: Owner = .local) throws(StoreError) {
        let audioPaths = try write { db in
            guard try ThreadRecord.exists(db, id: id, owner: owner) else { throw StoreError.threadNotFound(id) }
            let paths = try String.fetchAll(
                db, sql: "SELECT audio_path FROM message WHERE thread_id = ? AND audio_path IS NOT NULL ORDER BY id",
                arguments: [id])
            try ThreadRecord.deleteOne(db, key: id)
            return paths
        }
        try KeptAudio.remove(audioPaths)
    }

    /// Thread `id`'s row, if `owner` owns it.
    static func fetchThread(_ db: Database, id: Int64, owner: Owner) throws -> ThreadRecord {
        guard let record = try ThreadRecord.fetchOne(db, id: id, owner: owner) else { throw StoreError.threadNotFound(id) }
        return record
    }

    /// A thread's messages in order; the caller has checked that the thread is the owner's.
    static func fetchMessages(_ db: Database, thread: Int64) throws -> [StoredMessage] {
        let images = try MessageImageRecord.images(db, thread: thread)
        return
            try MessageRecord
            .filter(MessageRecord.Columns.threadID == thread)
            .order(MessageRecord.Columns.id)
            .fetchAll(db)
            .map { try $0.stored(images: images[$0.id ?? -1] ?? []) }
    }
}
