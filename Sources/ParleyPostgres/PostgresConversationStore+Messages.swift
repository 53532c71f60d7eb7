import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Appends a message with its images and marks the conversation active, in one transaction.
    @discardableResult
    public func append(_ message: NewMessage, to thread: Int64, owner: Owner) async throws(StoreError) -> StoredMessage {
        let date = now()
        let encoded: (references: String, timings: String, usage: String?, result: String?, tool: String?)
        do {
            encoded = (
                try PostgresRows.jsonText(message.imageReferences), try PostgresRows.jsonText(message.timingsMs),
                try message.usage.map(PostgresRows.jsonText), try message.structuredResult.map(PostgresRows.jsonText),
                try MessageToolColumn.jsonText(for: message)
            )
        } catch {
            throw .database(reason: "the message could not be encoded as JSON (\(error))")
        }
        return try await transaction { connection in
            // Checks the owner and locks the thread against a concurrent delete in one statement.
            let touched = try await connection.query(
                """
                UPDATE thread SET updated_at = \(date) WHERE id = \(thread) AND owner = \(owner.column) RETURNING id
                """, logger: self.logger
            ).collect()
            guard !touched.isEmpty else { throw StoreError.threadNotFound(thread) }
            let inserted = try await connection.query(
                """
                INSERT INTO message (thread_id, created_at, role, raw_transcript, edited_text, typed_text, text, image_references,
                    provider, timings_ms, usage, interrupted, full_reply, structured_result, tool)
                VALUES (\(thread), \(date), \(message.role.rawValue), \(message.rawTranscript), \(message.editedText),
                    \(message.typedText), \(message.text), \(encoded.references)::jsonb, \(message.provider),
                    \(encoded.timings)::jsonb, \(encoded.usage)::jsonb, \(message.interrupted), \(message.fullReply),
                    \(encoded.result)::jsonb, \(encoded.tool)::jsonb)
                RETURNING \(unescaped: PostgresRows.messageColumns)
                """, logger: self.logger
            ).collect()
            guard let row = inserted.first else { throw StoreError.database(reason: "the message could not be read back") }
            let saved = try PostgresRows.message(row, images: message.images)
            for (position, image) in message.images.enumerated() {
                try await connection.query(
                    """
                    INSERT INTO message_image (message_id, position, mime_type, data)
                    VALUES (\(saved.id), \(position), \(image.mimeType), \(image.data))
                    """, logger: self.logger)
            }
            return saved
        }
    }

    /// A conversation's messages, in append order.
    public func messages(in thread: Int64, owner: Owner) async throws(StoreError) -> [StoredMessage] {
        try await transaction(readOnly: true) { connection in
            let owned = try await connection.query(
                "SELECT id FROM thread WHERE id = \(thread) AND owner = \(owner.column)",
                logger: self.logger
            ).collect()
            guard !owned.isEmpty else { throw StoreError.threadNotFound(thread) }
            return try await Self.messages(connection, where: "message.thread_id = \(thread)", logger: self.logger)
        }
    }

    /// The message with this id, or `nil` when none of `owner`'s threads holds it.
    public func message(_ id: Int64, owner: Owner) async throws(StoreError) -> StoredMessage? {
        try await transaction(readOnly: true) { connection in
            try await Self.messages(connection, where: "message.id = \(id) AND thread.owner = \(owner.column)", logger: self.logger).first
        }
    }

    /// Records the person's correction of a transcript; the raw transcript is kept.
    public func editTranscript(message: Int64, text: String, owner: Owner) async throws(StoreError) {
        let rows = try await rows(
            """
            UPDATE message SET edited_text = \(text)
            WHERE id = \(message) AND thread_id IN (SELECT id FROM thread WHERE owner = \(owner.column))
            RETURNING id
            """)
        guard !rows.isEmpty else { throw .messageNotFound(message) }
    }

    /// Keeps `file` as the message's recording: its path, and its bytes in the database for the
    /// other instances. A different file attached before is removed.
    public func attachAudio(message: Int64, file: URL, owner: Owner) async throws(StoreError) {
        let path = file.standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: path) else { throw .audioFileMissing(path: path) }
        let previous = try await transaction { connection -> KeptRecording? in
            let old = try await Self.lockedAudioPath(connection, message: message, owner: owner, logger: self.logger)
            try await connection.query(
                "UPDATE message SET audio_path = \(path), audio_file_shared = false WHERE id = \(message)",
                logger: self.logger)
            try await connection.query(
                """
                INSERT INTO message_audio (message_id, data) VALUES (\(message), \(data))
                ON CONFLICT (message_id) DO UPDATE SET data = excluded.data
                """, logger: self.logger)
            return old
        }
        if let previous, previous.path != path, !previous.shared {
            try KeptAudio.remove([previous.path])
        }
    }

    /// The bytes of the message's recording, from the database.
    public func audio(message: Int64, owner: Owner) async throws(StoreError) -> Data? {
        let rows = try await rows(
            """
            SELECT message_audio.data FROM message JOIN thread ON thread.id = message.thread_id
            LEFT JOIN message_audio ON message_audio.message_id = message.id
            WHERE message.id = \(message) AND thread.owner = \(owner.column)
            """)
        guard let row = rows.first else { throw .messageNotFound(message) }
        return try Self.decoding { try row.decode(Data?.self) }
    }

    /// Removes a message's recording (its file here, unless it is another store's, and its
    /// bytes) and forgets it; when the file cannot be removed, nothing changes.
    public func deleteAudio(message: Int64, owner: Owner) async throws(StoreError) {
        try await transaction { connection in
            guard let kept = try await Self.lockedAudioPath(connection, message: message, owner: owner, logger: self.logger) else { return }
            if !kept.shared { try KeptAudio.remove([kept.path]) }
            try await connection.query(
                "UPDATE message SET audio_path = NULL, audio_file_shared = false WHERE id = \(message)",
                logger: self.logger)
            try await connection.query("DELETE FROM message_audio WHERE message_id = \(message)", logger: self.logger)
        }
    }

    /// The messages that `condition` selects (over `message` joined with its `thread`), in
    /// order, with their images.
    static func messages(_ connection: PostgresConnection, where condition: PostgresQuery, logger: Logger) async throws -> [StoredMessage] {
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(PostgresRows.messageColumns) FROM message JOIN thread ON thread.id = message.thread_id
                    WHERE \(condition.sql) ORDER BY message.id
                    """, binds: condition.binds), logger: logger
        ).collect()
        let imageRows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT message_image.message_id, message_image.mime_type, message_image.data FROM message_image
                    JOIN message ON message.id = message_image.message_id JOIN thread ON thread.id = message.thread_id
                    WHERE \(condition.sql) ORDER BY message_image.message_id, message_image.position
                    """, binds: condition.binds), logger: logger
        ).collect()
        let images = try PostgresRows.images(imageRows)
        return try rows.map { row in
            try PostgresRows.message(row, images: images[try row.makeRandomAccess()["id"].decode(Int64.self)] ?? [])
        }
    }

    /// The message's recording, with its row locked, if the message is in one of `owner`'s
    /// threads; else ``StoreError/messageNotFound(_:)``.
    private static func lockedAudioPath(
        _ connection: PostgresConnection, message: Int64, owner: Owner,
        logger: Logger
    ) async throws -> KeptRecording? {
        let rows = try await connection.query(
            """
            SELECT message.audio_path, message.audio_file_shared FROM message JOIN thread ON thread.id = message.thread_id
            WHERE message.id = \(message) AND thread.owner = \(owner.column)
            FOR UPDATE OF message
            """, logger: logger
        ).collect()
        guard let row = rows.first else { throw StoreError.messageNotFound(message) }
        let (path, shared) = try row.decode((String?, Bool).self)
        return path.map { KeptRecording(path: $0, shared: shared) }
    }
}

/// A message's kept recording: its file, and whether that file is another store's (a
/// recording `parley store copy` brought in from SQLite), which deleting the message here must
/// leave in place.
struct KeptRecording {
    var path: String
    var shared: Bool
}
