import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Starts a conversation that belongs to `owner`.
    public func createThread(title: String?, settings: ThreadSettings, owner: Owner) async throws(StoreError) -> StoredThread {
        let date = now()
        let rows = try await rows(
            """
            INSERT INTO thread (owner, title, created_at, updated_at, backend, model_preset, system_prompt, max_tokens)
            VALUES (\(owner.column), \(title), \(date), \(date), \(settings.backend), \(settings.modelPreset), \(settings.systemPrompt), \(settings.maxTokens))
            RETURNING \(unescaped: PostgresRows.threadColumns)
            """)
        guard let row = rows.first else { throw .database(reason: "the new thread could not be read back") }
        return try Self.decoding { try PostgresRows.thread(row) }
    }

    /// `owner`'s conversations, most recently active first, with message counts and previews.
    public func threads(owner: Owner) async throws(StoreError) -> [ThreadSummary] {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.threadColumns),
                (SELECT COUNT(*) FROM message WHERE message.thread_id = thread.id) AS message_count,
                (SELECT text FROM message WHERE message.thread_id = thread.id AND role NOT IN ('system', 'tool')
                    AND (text <> '' OR tool IS NULL)
                    ORDER BY id DESC LIMIT 1) AS last_text
            FROM thread
            WHERE owner = \(owner.column)
            ORDER BY updated_at DESC, id DESC
            """)
        return try Self.decoding {
            try rows.map { row in
                let columns = row.makeRandomAccess()
                let lastText = try columns["last_text"].decode(String?.self)
                return ThreadSummary(
                    thread: try PostgresRows.thread(row), messageCount: try columns["message_count"].decode(Int.self),
                    lastMessagePreview: lastText.map(ThreadSummary.preview(of:)))
            }
        }
    }

    /// The conversation with this id, or `nil` when `owner` has none with it.
    public func thread(_ id: Int64, owner: Owner) async throws(StoreError) -> StoredThread? {
        let rows = try await rows("SELECT \(unescaped: PostgresRows.threadColumns) FROM thread WHERE id = \(id) AND owner = \(owner.column)")
        return try Self.decoding { try rows.first.map(PostgresRows.thread) }
    }

    /// Replaces a conversation's settings.
    public func updateSettings(_ settings: ThreadSettings, thread: Int64, owner: Owner) async throws(StoreError) {
        let rows = try await rows(
            """
            UPDATE thread SET backend = \(settings.backend), model_preset = \(settings.modelPreset),
                system_prompt = \(settings.systemPrompt), max_tokens = \(settings.maxTokens)
            WHERE id = \(thread) AND owner = \(owner.column)
            RETURNING id
            """)
        guard !rows.isEmpty else { throw .threadNotFound(thread) }
    }

    /// Changes a conversation's title or settings. `change` runs on the thread as read; the
    /// result is written only if nobody changed the thread meanwhile (else `change` runs again
    /// on the newer thread), so concurrent updates from several instances are not lost.
    @discardableResult
    public func updateThread(_ id: Int64, owner: Owner, _ change: (inout StoredThread) -> Void) async throws(StoreError) -> StoredThread {
        for _ in 0..<8 {
            guard let original = try await thread(id, owner: owner) else { throw .threadNotFound(id) }
            var edited = original
            change(&edited)
            let changed = edited
            let written = try await transaction { connection -> StoredThread? in
                let current = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresRows.threadColumns) FROM thread WHERE id = \(id) AND owner = \(owner.column) FOR UPDATE
                    """, logger: self.logger
                ).collect()
                guard let row = current.first else { throw StoreError.threadNotFound(id) }
                guard try PostgresRows.thread(row) == original else { return nil }
                try await connection.query(
                    """
                    UPDATE thread SET title = \(changed.title), backend = \(changed.settings.backend),
                        model_preset = \(changed.settings.modelPreset), system_prompt = \(changed.settings.systemPrompt),
                        max_tokens = \(changed.settings.maxTokens)
                    WHERE id = \(id)
                    """, logger: self.logger)
                var saved = original
                saved.title = changed.title
                saved.settings = changed.settings
                return saved
            }
            if let written { return written }
        }
        throw .database(reason: "thread \(id) kept changing while it was being updated; try again")
    }

    /// Deletes a conversation with its messages, images and recordings (the rows, and the
    /// recordings' files where they are on this machine, unless another store still refers to
    /// them: see `importContents`). Stash items that came from it are
    /// kept without their thread and message ids.
    public func deleteThread(_ id: Int64, owner: Owner) async throws(StoreError) {
        let audioPaths = try await transaction { connection -> [String] in
            // The lock keeps an append from slipping a recording in between the two reads.
            let owned = try await connection.query(
                "SELECT id FROM thread WHERE id = \(id) AND owner = \(owner.column) FOR UPDATE", logger: self.logger
            ).collect()
            guard !owned.isEmpty else { throw StoreError.threadNotFound(id) }
            var paths: [String] = []
            let rows = try await connection.query(
                "SELECT audio_path FROM message WHERE thread_id = \(id) AND audio_path IS NOT NULL AND NOT audio_file_shared ORDER BY id", logger: self.logger)
            for try await path in rows.decode(String.self) { paths.append(path) }
            try await connection.query("DELETE FROM thread WHERE id = \(id)", logger: self.logger)
            return paths
        }
        try KeptAudio.remove(audioPaths)
    }

    /// Reads rows into values, turning a decoding failure into a ``StoreError``.
    static func decoding<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(reason: "a row could not be read (\(StoreError.postgresReason(error)))")
        }
    }
}
