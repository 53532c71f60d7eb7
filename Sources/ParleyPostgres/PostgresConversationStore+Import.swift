import Foundation
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Writes `contents` (read from another store, such as the SQLite file with
    /// `ConversationStore.contents()`) into this database, in one transaction: when anything
    /// fails, nothing is written. `parley store copy` runs it.
    ///
    /// Rows get new ids, in the order of their ids in `contents` (so a thread's messages keep
    /// their order), and every reference follows them: a message's thread, a stash item's
    /// thread and message. Creation and update times are kept. A kept recording is read from
    /// its ``StoredMessage/audioPath`` file into the database (which every instance serves it
    /// from), the path being kept as well, as a file this store never removes (it is still the
    /// source store's); when the file is gone, only the path is kept, as
    /// the source store had it, and ``StoreCounts/missingRecordings`` counts it.
    ///
    /// - Parameters:
    ///   - contents: What to write.
    ///   - intoNonEmpty: Whether to add to a database that already holds rows of the owners in
    ///     `contents` (or spending charges, when `contents` has some). Its rows stay; a
    ///     material or assignment from the same origin, or a sync state value under the same
    ///     key, is replaced by the copy's.
    ///   - limit: How long the whole copy may take (the store's per-call timeout is for single
    ///     calls).
    /// - Returns: How many rows of each kind were written, and the new ids of the threads and
    ///   messages.
    /// - Throws: ``StoreError/targetNotEmpty(location:owners:)`` when the database holds such
    ///   rows and `intoNonEmpty` is `false`; ``StoreError/cannotConnect(location:reason:)`` or
    ///   ``StoreError/database(reason:)`` when the copy fails (and was rolled back).
    @discardableResult
    public func importContents(
        _ contents: StoreContents, intoNonEmpty: Bool = false,
        within limit: Duration = .seconds(3_600)
    ) async throws(StoreError) -> ImportedContents {
        let location = location
        return try await transaction(within: limit) { connection in
            var writer = ContentsWriter(connection: connection, logger: self.logger)
            // Two copies at once would each find the database empty.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.importLockKey))", logger: self.logger)
            if !intoNonEmpty {
                let holders = try await writer.holders(of: contents)
                guard holders.isEmpty else { throw StoreError.targetNotEmpty(location: location, owners: holders) }
            }
            try await writer.write(contents)
            return ImportedContents(counts: writer.counts, threadIDs: writer.threadIDs, messageIDs: writer.messageIDs)
        }
    }

    /// A number that names copies into the database among its advisory locks.
    static let importLockKey: Int64 = 0x5041_524C_4559_0001
}

/// Writes ``StoreContents`` on one connection inside the caller's transaction, keeping the new
/// ids it gives threads and messages so that later rows can refer to them.
private struct ContentsWriter {
    let connection: PostgresConnection
    let logger: Logger
    var counts = StoreCounts()
    var threadIDs: [Int64: Int64] = [:]
    var messageIDs: [Int64: Int64] = [:]

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Who of `contents`' owners already has rows here (their descriptions), and `the spending
    /// ledger` when `contents` has charges and the database holds some.
    func holders(of contents: StoreContents) async throws -> [String] {
        let owners = contents.owners.map(\.owner)
        let columns = owners.map(\.column)
        let rows = try await connection.query(
            """
            SELECT owner FROM thread WHERE owner = ANY(\(columns)) UNION SELECT owner FROM stash_item WHERE owner = ANY(\(columns))
            UNION SELECT owner FROM material WHERE owner = ANY(\(columns)) UNION SELECT owner FROM assignment WHERE owner = ANY(\(columns))
            UNION SELECT owner FROM sync_state WHERE owner = ANY(\(columns))
            """, logger: logger
        ).collect()
        let taken = Set(try rows.map { try $0.decode(String.self) })
        var holders = owners.filter { taken.contains($0.column) }.map(\.description)
        if !contents.spending.isEmpty {
            let charges = try await connection.query("SELECT 1 FROM spending LIMIT 1", logger: logger).collect()
            if !charges.isEmpty { holders.append("the spending ledger") }
        }
        return holders
    }

    /// Writes every row of `contents`, each table's rows in the order of their source ids.
    mutating func write(_ contents: StoreContents) async throws {
        counts.owners = contents.owners.count
        let threads = contents.owners.flatMap { owner in owner.threads.map { (owner: owner.owner, thread: $0) } }
            .sorted { $0.thread.id < $1.thread.id }
        for (owner, thread) in threads { try await insert(thread, owner: owner) }
        for message in threads.flatMap({ $0.thread.messages }).sorted(by: { $0.id < $1.id }) { try await insert(message) }
        for (owner, item) in Self.owned(contents, \.stash).sorted(by: { $0.item.id < $1.item.id }) { try await insert(item, owner: owner) }
        for (owner, material) in Self.owned(contents, \.materials).sorted(by: { $0.item.id < $1.item.id }) {
            try await insert(material, owner: owner)
        }
        for (owner, assignment) in Self.owned(contents, \.assignments).sorted(by: { $0.item.id < $1.item.id }) {
            try await insert(assignment, owner: owner)
        }
        for (owner, value) in Self.owned(contents, \.syncState) { try await insert(value, owner: owner) }
        for charge in contents.spending {
            try await connection.query(
                """
                INSERT INTO spending (provider, cost_usd, created_at) VALUES (\(charge.provider), \(charge.costUSD), \(charge.createdAt))
                """, logger: logger)
            counts.spendingCharges += 1
        }
    }

    /// Every owner's rows of one kind, with their owner.
    private static func owned<Item>(_ contents: StoreContents, _ list: KeyPath<OwnerContents, [Item]>) -> [(owner: Owner, item: Item)] {
        contents.owners.flatMap { owner in owner[keyPath: list].map { (owner: owner.owner, item: $0) } }
    }

    private mutating func insert(_ thread: ExportedThread, owner: Owner) async throws {
        let settings = thread.settings
        let rows = try await connection.query(
            """
            INSERT INTO thread (owner, title, created_at, updated_at, backend, model_preset, system_prompt, max_tokens)
            VALUES (\(owner.column), \(thread.title), \(thread.createdAt), \(thread.updatedAt), \(settings.backend),
                    \(settings.modelPreset), \(settings.systemPrompt), \(settings.maxTokens))
            RETURNING id
            """, logger: logger
        ).collect()
        guard let row = rows.first else { throw StoreError.database(reason: "a copied thread could not be read back") }
        threadIDs[thread.id] = try row.decode(Int64.self)
        counts.threads += 1
    }

    private mutating func insert(_ message: StoredMessage) async throws {
        guard let thread = threadIDs[message.threadID] else {
            throw StoreError.database(reason: "message \(message.id) belongs to thread \(message.threadID), which is not being copied")
        }
        let content = message.content
        let encoded: (references: String, timings: String, usage: String?, result: String?, tool: String?)
        do {
            encoded = (
                try PostgresRows.jsonText(content.imageReferences), try PostgresRows.jsonText(content.timingsMs),
                try content.usage.map(PostgresRows.jsonText), try content.structuredResult.map(PostgresRows.jsonText),
                try MessageToolColumn.jsonText(for: content)
            )
        } catch {
            throw StoreError.database(reason: "message \(message.id) could not be encoded as JSON (\(error))")
        }
        let rows = try await connection.query(
            """
            INSERT INTO message (thread_id, created_at, role, raw_transcript, edited_text, typed_text, text, image_references,
                provider, timings_ms, usage, interrupted, full_reply, structured_result, tool, audio_path, audio_file_shared)
            VALUES (\(thread), \(message.createdAt), \(content.role.rawValue), \(content.rawTranscript), \(content.editedText),
                \(content.typedText), \(content.text), \(encoded.references)::jsonb, \(content.provider),
                \(encoded.timings)::jsonb, \(encoded.usage)::jsonb, \(content.interrupted), \(content.fullReply),
                \(encoded.result)::jsonb, \(encoded.tool)::jsonb, \(message.audioPath), \(message.audioPath != nil))
            RETURNING id
            """, logger: logger
        ).collect()
        guard let row = rows.first else { throw StoreError.database(reason: "a copied message could not be read back") }
        let id = try row.decode(Int64.self)
        messageIDs[message.id] = id
        counts.messages += 1
        for (position, image) in content.images.enumerated() {
            try await connection.query(
                """
                INSERT INTO message_image (message_id, position, mime_type, data) VALUES (\(id), \(position), \(image.mimeType), \(image.data))
                """, logger: logger)
            counts.images += 1
        }
        guard let path = message.audioPath else { return }
        counts.recordings += 1
        guard let data = FileManager.default.contents(atPath: path) else {
            counts.missingRecordings += 1
            return
        }
        try await connection.query("INSERT INTO message_audio (message_id, data) VALUES (\(id), \(data))", logger: logger)
    }

    private mutating func insert(_ item: StashItem, owner: Owner) async throws {
        let thread = item.threadID.flatMap { threadIDs[$0] }
        let message = item.messageID.flatMap { messageIDs[$0] }
        try await connection.query(
            """
            INSERT INTO stash_item (owner, created_at, kind, text, thread_id, message_id)
            VALUES (\(owner.column), \(item.createdAt), \(item.kind), \(item.text), \(thread), \(message))
            """, logger: logger)
        counts.stashItems += 1
    }

    private mutating func insert(_ material: Material, owner: Owner) async throws {
        let pages = Int32(clamping: material.pageCount)
        try await connection.query(
            """
            INSERT INTO material (owner, created_at, title, kind, source, text, page_count, read_by, origin)
            VALUES (\(owner.column), \(material.createdAt), \(material.title), \(material.kind), \(material.source), \(material.text),
                    \(pages), \(material.readBy), \(material.origin))
            ON CONFLICT (owner, origin) WHERE origin IS NOT NULL DO UPDATE SET
                title = EXCLUDED.title, kind = EXCLUDED.kind, source = EXCLUDED.source, text = EXCLUDED.text,
                page_count = EXCLUDED.page_count, read_by = EXCLUDED.read_by
            """, logger: logger)
        counts.materials += 1
    }

    private mutating func insert(_ assignment: Assignment, owner: Owner) async throws {
        try await connection.query(
            """
            INSERT INTO assignment (owner, created_at, updated_at, origin, source, title, details, due_day, due_at, link)
            VALUES (\(owner.column), \(assignment.createdAt), \(assignment.updatedAt), \(assignment.origin), \(assignment.source),
                    \(assignment.title), \(assignment.details), \(assignment.dueDay), \(assignment.dueAt), \(assignment.link))
            ON CONFLICT (owner, origin) DO UPDATE SET
                updated_at = EXCLUDED.updated_at, source = EXCLUDED.source, title = EXCLUDED.title, details = EXCLUDED.details,
                due_day = EXCLUDED.due_day, due_at = EXCLUDED.due_at, link = EXCLUDED.link
            """, logger: logger)
        counts.assignments += 1
    }

    private mutating func insert(_ value: SyncStateValue, owner: Owner) async throws {
        try await connection.query(
            """
            INSERT INTO sync_state (owner, key, value, updated_at) VALUES (\(owner.column), \(value.key), \(value.value), \(value.updatedAt))
            ON CONFLICT (owner, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
            """, logger: logger)
        counts.syncValues += 1
    }
}
