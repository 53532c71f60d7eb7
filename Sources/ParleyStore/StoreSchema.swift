import GRDB

/// The database schema, as a list of named migrations.
///
/// Migrations are applied in order and never edited once released: a later version adds a new
/// `"v2-…"` migration (e.g. to add a column) and old databases are brought up to date when they
/// are opened.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-threads-messages-stash", migrate: createTables)
        migrator.registerMigration("v2-spending", migrate: createSpending)
        migrator.registerMigration("v3-message-images-structured-result", migrate: addImagesAndStructuredResults)
        migrator.registerMigration("v4-owners", migrate: addOwners)
        migrator.registerMigration("v5-response-cache", migrate: createResponseCache)
        migrator.registerMigration("v6-materials", migrate: createMaterials)
        migrator.registerMigration("v7-synced-materials-assignments-sync-state", migrate: createSyncTables)
        migrator.registerMigration("v8-tool-calls", migrate: addToolColumn)
        migrator.registerMigration("v9-material-search", migrate: createMaterialSearch)
        migrator.registerMigration("v10-material-vectors", migrate: createMaterialVectors)
        return migrator
    }

    /// The name of the FTS5 index of the materials' titles and texts, which
    /// ``ConversationStore/searchMaterials(_:limit:owner:)`` searches (the SQL here and there
    /// spells it out).
    static let materialSearchTable = "material_search"

    /// An FTS5 index of the materials' titles and texts (words folded to their stem, accents
    /// ignored), kept by SQLite beside the `material` table: it holds no copy of the text, and
    /// triggers keep it in step with every insert, update and delete of a material, whichever
    /// path makes it. Materials saved before are indexed now.
    ///
    /// A SQLite built without FTS5 gets no index; the migration still succeeds, and searching
    /// falls back to ``MaterialSearch``.
    private static func createMaterialSearch(_ db: Database) throws {
        guard try hasFTS5(db) else { return }
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE material_search USING fts5(
                    title, text, content='material', content_rowid='id', tokenize='porter unicode61');
                CREATE TRIGGER material_search_after_insert AFTER INSERT ON material BEGIN
                    INSERT INTO material_search (rowid, title, text) VALUES (new.id, new.title, new.text);
                END;
                CREATE TRIGGER material_search_after_delete AFTER DELETE ON material BEGIN
                    INSERT INTO material_search (material_search, rowid, title, text)
                    VALUES ('delete', old.id, old.title, old.text);
                END;
                CREATE TRIGGER material_search_after_update AFTER UPDATE ON material BEGIN
                    INSERT INTO material_search (material_search, rowid, title, text)
                    VALUES ('delete', old.id, old.title, old.text);
                    INSERT INTO material_search (rowid, title, text) VALUES (new.id, new.title, new.text);
                END;
                INSERT INTO material_search (material_search) VALUES ('rebuild');
                """)
    }

    /// The embedding vectors of the materials' passages, per embedding model, for searching by
    /// meaning (``ConversationStore/materialVectors(model:owner:)``). They go with their
    /// material, and a change to its title or text drops them (they are made again from the new
    /// text when next searched).
    private static func createMaterialVectors(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE material_vector (
                    material INTEGER NOT NULL REFERENCES material (id) ON DELETE CASCADE,
                    model TEXT NOT NULL,
                    passage INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    vector BLOB NOT NULL,
                    PRIMARY KEY (material, model, passage)
                );
                CREATE TRIGGER material_vector_after_update AFTER UPDATE OF title, text ON material
                WHEN old.title IS NOT new.title OR old.text IS NOT new.text BEGIN
                    DELETE FROM material_vector WHERE material = old.id;
                END;
                """)
    }

    /// Whether the linked SQLite has the FTS5 module: built in (its compile options say so), or
    /// loaded (then creating a table with it works; the trial is undone).
    private static func hasFTS5(_ db: Database) throws -> Bool {
        if try String.fetchAll(db, sql: "PRAGMA compile_options").contains("ENABLE_FTS5") { return true }
        do {
            try db.inSavepoint {
                try db.execute(sql: "CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(probe)")
                return .rollback
            }
            return true
        } catch let error as DatabaseError where error.message?.contains("no such module") == true {
            return false
        }
    }

    /// A message's part in a tool exchange (an assistant's calls, or which call a tool's result
    /// answers and whether it failed), as JSON in the nullable `tool` column (the format is
    /// ``MessageToolColumn``'s). Rows saved before are `NULL`: messages without tools.
    private static func addToolColumn(_ db: Database) throws {
        try db.alter(table: MessageRecord.databaseTableName) { t in
            t.add(column: "tool", .jsonText)
        }
    }

    /// What syncs with other services keep: where a material came from (one per origin and
    /// owner), assignments (one per origin and owner) and small per-owner values (increment
    /// tokens, a sign-in). `owner` is `NULL` for the local user and SQLite's UNIQUE holds
    /// NULLs distinct, so uniqueness is on `ifnull(owner, '')`.
    private static func createSyncTables(_ db: Database) throws {
        try db.alter(table: MaterialRecord.databaseTableName) { t in
            t.add(column: "origin", .text)
        }
        try db.execute(sql: "CREATE UNIQUE INDEX material_on_owner_origin ON material (ifnull(owner, ''), origin) WHERE origin IS NOT NULL")
        try db.create(table: AssignmentRecord.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("owner", .text)
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
            t.column("origin", .text).notNull()
            t.column("source", .text).notNull()
            t.column("title", .text).notNull()
            t.column("details", .text).notNull()
            t.column("due_day", .text).notNull()
            t.column("due_at", .datetime)
            t.column("link", .text)
        }
        try db.execute(sql: "CREATE UNIQUE INDEX assignment_on_owner_origin ON assignment (ifnull(owner, ''), origin)")
        try db.execute(sql: "CREATE INDEX assignment_on_owner_due ON assignment (owner, due_day)")
        try db.create(table: "sync_state") { t in
            t.column("owner", .text)
            t.column("key", .text).notNull()
            t.column("value", .text).notNull()
            t.column("updated_at", .datetime).notNull()
        }
        try db.execute(sql: "CREATE UNIQUE INDEX sync_state_on_owner_key ON sync_state (ifnull(owner, ''), key)")
    }

    /// Study materials: the text read from a document or an image, each its owner's.
    private static func createMaterials(_ db: Database) throws {
        try db.create(table: MaterialRecord.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("owner", .text)
            t.column("created_at", .datetime).notNull()
            t.column("title", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("source", .text).notNull()
            t.column("text", .text).notNull()
            t.column("page_count", .integer).notNull()
            t.column("read_by", .text).notNull()
        }
        try db.create(index: "material_on_owner", on: MaterialRecord.databaseTableName, columns: ["owner", "id"])
    }

    /// Answers the server may give again to an identical request, each its owner's, until it
    /// expires. The index serves the lookups' expiry test and the sweep of expired rows.
    private static func createResponseCache(_ db: Database) throws {
        try db.create(table: "response_cache") { t in
            t.primaryKey("key", .text)
            t.column("owner", .text)
            t.column("body", .blob).notNull()
            t.column("created_at", .datetime).notNull()
            t.column("expires_at", .datetime).notNull().indexed()
        }
    }

    /// Who owns each thread and stash item (``Owner``): `NULL` is the local user, so every row
    /// saved before is the local user's. A message belongs to its thread's owner. The indexes
    /// serve each owner's list, most recent first.
    private static func addOwners(_ db: Database) throws {
        try db.alter(table: ThreadRecord.databaseTableName) { t in
            t.add(column: "owner", .text)
        }
        try db.alter(table: StashItemRecord.databaseTableName) { t in
            t.add(column: "owner", .text)
        }
        try db.create(index: "thread_on_owner_updated_at", on: ThreadRecord.databaseTableName, columns: ["owner", "updated_at"])
        try db.create(index: "stash_item_on_owner", on: StashItemRecord.databaseTableName, columns: ["owner"])
    }

    /// Images attached to messages, kept as blobs that go with their message (and so with
    /// their thread), and the JSON result of a structured-output reply.
    private static func addImagesAndStructuredResults(_ db: Database) throws {
        try db.alter(table: MessageRecord.databaseTableName) { t in
            t.add(column: "structured_result", .jsonText)
        }
        try db.create(table: MessageImageRecord.databaseTableName) { t in
            t.column("message_id", .integer).notNull().references(MessageRecord.databaseTableName, onDelete: .cascade)
            t.column("position", .integer).notNull()
            t.column("mime_type", .text).notNull()
            t.column("data", .blob).notNull()
            t.primaryKey(["message_id", "position"])
        }
    }

    /// Charges of paid providers, so a monthly budget holds across processes.
    private static func createSpending(_ db: Database) throws {
        try db.create(table: "spending") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("provider", .text).notNull()
            t.column("cost_usd", .double).notNull()
            t.column("created_at", .datetime).notNull().indexed()
        }
    }

    private static func createTables(_ db: Database) throws {
        try db.create(table: ThreadRecord.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("title", .text)
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull().indexed()
            t.column("backend", .text).notNull()
            t.column("model_preset", .text)
            t.column("system_prompt", .text).notNull()
            t.column("max_tokens", .integer).notNull()
        }
        try db.create(table: MessageRecord.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("thread_id", .integer).notNull().references(ThreadRecord.databaseTableName, onDelete: .cascade)
            t.column("created_at", .datetime).notNull()
            t.column("role", .text).notNull()
            t.column("raw_transcript", .text)
            t.column("edited_text", .text)
            t.column("typed_text", .text)
            t.column("text", .text).notNull()
            t.column("image_references", .jsonText).notNull().defaults(to: "[]")
            t.column("provider", .text)
            t.column("timings_ms", .jsonText).notNull().defaults(to: "{}")
            t.column("usage", .jsonText)
            t.column("interrupted", .boolean).notNull().defaults(to: false)
            t.column("full_reply", .text)
            t.column("audio_path", .text)
        }
        try db.create(index: "message_on_thread_id_id", on: MessageRecord.databaseTableName, columns: ["thread_id", "id"])
        try db.create(table: StashItemRecord.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("created_at", .datetime).notNull()
            t.column("kind", .text).notNull()
            t.column("text", .text).notNull()
            t.column("thread_id", .integer).indexed().references(ThreadRecord.databaseTableName, onDelete: .setNull)
            t.column("message_id", .integer).indexed().references(MessageRecord.databaseTableName, onDelete: .setNull)
        }
    }
}
