import Foundation
import GRDB
import ParleyCore

extension ConversationStore {
    /// Appends a message, with its images, to a conversation and marks the conversation
    /// active, in one transaction. Once this returns, the message is on disk.
    ///
    /// The message's `audio` is not written here: keep a recording with
    /// ``attachAudio(message:file:)``.
    ///
    /// - Returns: The message as saved, with its id and time.
    /// - Throws: ``StoreError/threadNotFound(_:)`` when no thread has the id.
    @discardableResult
    public func append(_ message: ConversationMessage, to thread: Int64) throws(StoreError) -> StoredMessage {
        try write { db in
            guard try ThreadRecord.exists(db, key: thread) else { throw StoreError.threadNotFound(thread) }
            var record = MessageRecord(message, threadID: thread, createdAt: try db.transactionDate)
            try record.insert(db)
            let id = record.id ?? -1
            for image in MessageImageRecord.rows(message.images, messageID: id) {
                try image.insert(db)
            }
            try db.execute(
                sql: "UPDATE thread SET updated_at = ? WHERE id = ?", arguments: [record.createdAt, thread])
            return try Self.fetchMessage(db, id: id).stored(images: try MessageImageRecord.images(db, message: id))
        }
    }

    /// Records the person's correction of a transcript; the raw transcript is kept as heard.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)`` when no message has the id.
    public func editTranscript(message: Int64, text: String) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE message SET edited_text = ? WHERE id = ?", arguments: [text, message])
            guard db.changesCount > 0 else { throw StoreError.messageNotFound(message) }
        }
    }

    /// Records the kept recording of a message. The file must exist; a different file attached
    /// before is removed.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)``, ``StoreError/audioFileMissing(path:)``, or
    ///   ``StoreError/cannotRemoveAudio(paths:reason:)`` when the new path was recorded but the
    ///   previous file could not be removed.
    public func attachAudio(message: Int64, file: URL) throws(StoreError) {
        let path = file.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { throw .audioFileMissing(path: path) }
        let previous = try write { db in
            let old = try Self.fetchMessage(db, id: message).audioPath
            try db.execute(sql: "UPDATE message SET audio_path = ? WHERE id = ?", arguments: [path, message])
            return old
        }
        if let previous, previous != path {
            try Self.removeFiles([previous])
        }
    }

    /// Removes a message's kept recording from disk and forgets it. Does nothing when the
    /// message has none.
    ///
    /// - Throws: ``StoreError/messageNotFound(_:)``, or
    ///   ``StoreError/cannotRemoveAudio(paths:reason:)`` (the path is then kept).
    public func deleteAudio(message: Int64) throws(StoreError) {
        try write { db in
            guard let path = try Self.fetchMessage(db, id: message).audioPath else { return }
            try Self.removeFiles([path])
            try db.execute(sql: "UPDATE message SET audio_path = NULL WHERE id = ?", arguments: [message])
        }
    }

    /// The message with this id, or `nil` when there is none.
    public func message(_ id: Int64) throws(StoreError) -> StoredMessage? {
        try read { db in try MessageRecord.fetchOne(db, key: id)?.stored(images: try MessageImageRecord.images(db, message: id)) }
    }

    static func fetchMessage(_ db: Database, id: Int64) throws -> MessageRecord {
        guard let record = try MessageRecord.fetchOne(db, key: id) else { throw StoreError.messageNotFound(id) }
        return record
    }
}
