import Foundation
import GRDB
import ParleyCore

extension ConversationStore {
    /// Appends a message, with its images, to a conversation and marks the conversation
    /// active, in one transaction. Once this returns, the message is on disk.
    ///
    /// The message's `audio` is not written here: keep a recording with
    /// ``attachAudio(message:file:owner:)``.
    ///
    /// - Returns: The message as saved, with its id and time.
    /// - Throws: ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the id.
    @discardableResult
    public func append(_ message: ConversationMessage, to thread: Int64, owner: Owner = .local) throws(StoreError) -> StoredMessage {
        try write { db in
            guard try ThreadRecord.exists(db, id: thread, owner: owner) else { throw StoreError.threadNotFound(thread) }
            var record = MessageRecord(message, threadID: thread, createdAt: try db.transactionDate)
            try record.insert(db)
            let id = record.id ?? -1
            for image in MessageImageRecord.rows(message.images, messageID: id) {
                try image.insert(db)
            }
            try db.execute(
                sql: "UPDATE thread SET updated_at = ? WHERE id = ?", arguments: [record.createdAt, thread])
            return try Self.fetchMessage(db, id: id, owner: owner).stored(images: try MessageImageRecord.images(db, message: id))
        }
    }

    /// Records the person's correction of a transcript; the raw transcript is kept as heard.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)`` when no message of `owner`'s threads has
    ///   the id.
    public func editTranscript(message: Int64, text: String, owner: Owner = .local) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "UPDATE message SET edited_text = ? WHERE id = ? AND thread_id IN (SELECT id FROM thread WHERE owner IS ?)",
                arguments: [text, message, owner.id])
            guard db.changesCount > 0 else { throw StoreError.messageNotFound(message) }
        }
    }

    /// Records the kept recording of a message. The file must exist; a different file attached
    /// before is removed.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)`` when no message of `owner`'s threads has
    ///   the id, ``StoreError/audioFileMissing(path:)``, or
    ///   ``StoreError/cannotRemoveAudio(paths:reason:)`` when the new path was recorded but the
    ///   previous file could not be removed.
    public func attachAudio(message: Int64, file: URL, owner: Owner = .local) throws(StoreError) {
        let path = file.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { throw .audioFileMissing(path: path) }
        let previous = try write { db in
            let old = try Self.fetchMessage(db, id: message, owner: owner).audioPath
            try db.execute(sql: "UPDATE message SET audio_path = ? WHERE id = ?", arguments: [path, message])
            return old
        }
        if let previous, previous != path {
            try KeptAudio.remove([previous])
        }
    }

    /// Removes a message's kept recording from disk and forgets it. Does nothing when the
    /// message has none.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)`` when no message of `owner`'s threads has
    ///   the id, or ``StoreError/cannotRemoveAudio(paths:reason:)`` (the path is then kept).
    public func deleteAudio(message: Int64, owner: Owner = .local) throws(StoreError) {
        try write { db in
            guard let path = try Self.fetchMessage(db, id: message, owner: owner).audioPath else { return }
            try KeptAudio.remove([path])
            try db.execute(sql: "UPDATE message SET audio_path = NULL WHERE id = ?", arguments: [message])
        }
    }

    /// The message with this id, or `nil` when none of `owner`'s threads holds it.
    public func message(_ id: Int64, owner: Owner = .local) throws(StoreError) -> StoredMessage? {
        try read { db in
            guard let record = try Self.fetchMessageIfOwned(db, id: id, owner: owner) else { return nil }
            return try record.stored(images: try MessageImageRecord.images(db, message: id))
        }
    }

    /// Message `id`'s row, if it is in one of `owner`'s threads.
    static func fetchMessage(_ db: Database, id: Int64, owner: Owner) throws -> MessageRecord {
        guard let record = try fetchMessageIfOwned(db, id: id, owner: owner) else { throw StoreError.messageNotFound(id) }
        return record
    }

    private static func fetchMessageIfOwned(_ db: Database, id: Int64, owner: Owner) throws -> MessageRecord? {
        try MessageRecord.fetchOne(
            db,
            sql: """
                SELECT message.* FROM message JOIN thread ON thread.id = message.thread_id
                WHERE message.id = ? AND thread.owner IS ?
                """, arguments: [id, owner.id])
    }
}
