import Logging
import PostgresNIO

/// The PostgreSQL schema, as a list of named migrations, applied in order and recorded in the
/// `parley_schema_migrations` table. Released migrations are never edited: a later version adds
/// `"v2-…"`. The first one builds what the SQLite store's five migrations build.
///
/// Owners are kept as ``Owner/id``, the local user as `''` (where SQLite keeps `NULL`): an
/// empty string keeps `owner = $1` exact and able to use the indexes (`NULL = NULL` is not
/// true in SQL). An API key's owner id is never empty.
enum PostgresSchema {
    /// A migration: a name and its statements (one statement per query, as the extended
    /// protocol wants).
    struct Migration: Sendable {
        var name: String
        var statements: [String]
    }

    static let migrations: [Migration] = [
        Migration(
            name: "v1-threads-messages-stash-spending-cache",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS thread (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    owner text NOT NULL DEFAULT '',
                    title text,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    backend text NOT NULL,
                    model_preset text,
                    system_prompt text NOT NULL,
                    max_tokens bigint NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS thread_on_owner_updated_at ON thread (owner, updated_at DESC, id DESC)",
                """
                CREATE TABLE IF NOT EXISTS message (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    thread_id bigint NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
                    created_at timestamptz NOT NULL,
                    role text NOT NULL,
                    raw_transcript text,
                    edited_text text,
                    typed_text text,
                    text text NOT NULL,
                    image_references jsonb NOT NULL DEFAULT '[]',
                    provider text,
                    timings_ms jsonb NOT NULL DEFAULT '{}',
                    usage jsonb,
                    interrupted boolean NOT NULL DEFAULT false,
                    full_reply text,
                    structured_result jsonb,
                    audio_path text
                )
                """,
                "CREATE INDEX IF NOT EXISTS message_on_thread_id_id ON message (thread_id, id)",
                """
                CREATE TABLE IF NOT EXISTS message_image (
                    message_id bigint NOT NULL REFERENCES message (id) ON DELETE CASCADE,
                    position integer NOT NULL,
                    mime_type text NOT NULL,
                    data bytea NOT NULL,
                    PRIMARY KEY (message_id, position)
                )
                """,
                """
                CREATE TABLE IF NOT EXISTS message_audio (
                    message_id bigint PRIMARY KEY REFERENCES message (id) ON DELETE CASCADE,
                    data bytea NOT NULL
                )
                """,
                """
                CREATE TABLE IF NOT EXISTS stash_item (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    owner text NOT NULL DEFAULT '',
                    created_at timestamptz NOT NULL,
                    kind text NOT NULL,
                    text text NOT NULL,
                    thread_id bigint REFERENCES thread (id) ON DELETE SET NULL,
                    message_id bigint REFERENCES message (id) ON DELETE SET NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS stash_item_on_owner ON stash_item (owner, id DESC)",
                "CREATE INDEX IF NOT EXISTS stash_item_on_thread_id ON stash_item (thread_id)",
                "CREATE INDEX IF NOT EXISTS stash_item_on_message_id ON stash_item (message_id)",
                """
                CREATE TABLE IF NOT EXISTS spending (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    provider text NOT NULL,
                    cost_usd double precision NOT NULL,
                    created_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS spending_on_created_at ON spending (created_at)",
                """
                CREATE TABLE IF NOT EXISTS response_cache (
                    key text PRIMARY KEY,
                    owner text NOT NULL DEFAULT '',
                    body bytea NOT NULL,
                    created_at timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS response_cache_on_expires_at ON response_cache (expires_at)",
            ]),
        Migration(
            name: "v2-materials",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS material (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    owner text NOT NULL DEFAULT '',
                    created_at timestamptz NOT NULL,
                    title text NOT NULL,
                    kind text NOT NULL,
                    source text NOT NULL,
                    text text NOT NULL,
                    page_count integer NOT NULL,
                    read_by text NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS material_on_owner ON material (owner, id DESC)",
            ]),
        Migration(
            name: "v3-synced-materials-assignments-sync-state",
            statements: [
                "ALTER TABLE material ADD COLUMN IF NOT EXISTS origin text",
                "CREATE UNIQUE INDEX IF NOT EXISTS material_on_owner_origin ON material (owner, origin) WHERE origin IS NOT NULL",
                """
                CREATE TABLE IF NOT EXISTS assignment (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    owner text NOT NULL DEFAULT '',
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    origin text NOT NULL,
                    source text NOT NULL,
                    title text NOT NULL,
                    details text NOT NULL,
                    due_day text NOT NULL,
                    due_at timestamptz,
                    link text,
                    UNIQUE (owner, origin)
                )
                """,
                "CREATE INDEX IF NOT EXISTS assignment_on_owner_due ON assignment (owner, due_day)",
                """
                CREATE TABLE IF NOT EXISTS sync_state (
                    owner text NOT NULL DEFAULT '',
                    key text NOT NULL,
                    value text NOT NULL,
                    updated_at timestamptz NOT NULL,
                    PRIMARY KEY (owner, key)
                )
                """,
            ]),
        // A recording copied in by `parley store copy` keeps the SQLite store's path, but that
        // file is still the SQLite store's: deleting the copy must not remove it.
        Migration(
            name: "v4-copied-recordings",
            statements: [
                "ALTER TABLE message ADD COLUMN IF NOT EXISTS audio_file_shared boolean NOT NULL DEFAULT false"
            ]),
        // A message's part in a tool exchange (an assistant's calls, or which call a tool's result
        // answers and whether it failed), in the format of `MessageToolColumn`; `NULL` for a
        // message without tools, as every row saved before is.
        Migration(
            name: "v5-tool-calls",
            statements: [
                "ALTER TABLE message ADD COLUMN IF NOT EXISTS tool jsonb"
            ]),
        // The materials' words for full-text search, which `searchMaterials` looks in: a
        // `tsvector` that PostgreSQL keeps up to date with the title (weight A, counting more)
        // and the text (weight B), stemmed as English, and computes now for the rows saved
        // before; and the GIN index that finds the rows holding a word.
        Migration(
            name: "v6-material-search",
            statements: [
                """
                ALTER TABLE material ADD COLUMN IF NOT EXISTS search tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', text), 'B')
                ) STORED
                """,
                "CREATE INDEX IF NOT EXISTS material_search ON material USING gin (search)",
            ]),
        // The embedding vectors of the materials' passages, per embedding model, for searching by
        // meaning: they go with their material, and a change to its title or text drops them
        // (they are made again from the new text when next searched).
        Migration(
            name: "v7-material-vectors",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS material_vector (
                    material bigint NOT NULL REFERENCES material (id) ON DELETE CASCADE,
                    model text NOT NULL,
                    passage integer NOT NULL,
                    text text NOT NULL,
                    vector bytea NOT NULL,
                    PRIMARY KEY (material, model, passage)
                )
                """,
                """
                CREATE OR REPLACE FUNCTION parley_material_vector_drop() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.title IS DISTINCT FROM OLD.title OR NEW.text IS DISTINCT FROM OLD.text THEN
                        DELETE FROM material_vector WHERE material = OLD.id;
                    END IF;
                    RETURN NEW;
                END
                $$
                """,
                "DROP TRIGGER IF EXISTS material_vector_after_update ON material",
                """
                CREATE TRIGGER material_vector_after_update AFTER UPDATE ON material
                FOR EACH ROW EXECUTE FUNCTION parley_material_vector_drop()
                """,
            ]),
        // What every instance sharing the database spent of each key's limits, per minute
        // (so that N instances enforce one limit, not N), and the threads a response is being
        // written into (so that one previous_response_id is continued once across instances).
        Migration(
            name: "v8-shared-limits-and-claims",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS rate_spending (
                    owner text NOT NULL,
                    minute bigint NOT NULL,
                    requests bigint NOT NULL DEFAULT 0,
                    tokens bigint NOT NULL DEFAULT 0,
                    PRIMARY KEY (owner, minute)
                )
                """,
                """
                CREATE TABLE IF NOT EXISTS response_claim (
                    thread_id bigint PRIMARY KEY,
                    claimed_at timestamptz NOT NULL
                )
                """,
            ]),
    ]

    /// A number that names Parley's migrations among the database's advisory locks.
    static let lockKey: Int64 = 0x5041_524C_4559  // "PARLEY"

    /// Applies the migrations `connection`'s database lacks, in one transaction that holds an
    /// advisory lock: instances that start together take turns, and the second finds the work
    /// done. Returns the names of the migrations applied now.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS parley_schema_migrations (
                    name text PRIMARY KEY,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            let applied = try await appliedMigrations(connection, logger: logger)
            var now: [String] = []
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO parley_schema_migrations (name) VALUES (\(migration.name))", logger: logger)
                now.append(migration.name)
            }
            if !now.isEmpty { logger.notice("conversation database migrated: \(now.joined(separator: ", "))") }
            return now
        }
    }

    /// The names of the applied migrations, in the order they were applied.
    static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var names: [String] = []
        let rows = try await connection.query("SELECT name FROM parley_schema_migrations ORDER BY applied_at, name", logger: logger)
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }
}
