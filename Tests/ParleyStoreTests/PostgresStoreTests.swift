import Foundation
@testable import ParleyPostgres
import ParleyStore
import ParleyTestServers
import Testing

/// What only the PostgreSQL store does: its schema and version table, instances starting
/// together, recordings served by an instance that did not keep them, and its errors.
@Suite("PostgreSQL store", .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
struct PostgresStoreTests {
    /// A fresh database on the test server, dropped after `body`; the test case is cancelled
    /// (skipped) when no server is available.
    func withDatabase(_ body: (DatabaseURL) async throws -> Void) async throws {
        let server = try TestPostgres.serverOrSkip()
        let database = try await TestPostgres.createDatabase(on: server)
        do {
            try await body(database)
        } catch {
            try? await TestPostgres.dropDatabase(database, on: server)
            throw error
        }
        try await TestPostgres.dropDatabase(database, on: server)
    }

    @Test("the store tests run on PostgreSQL too (each is parameterized over SQLite and PostgreSQL)")
    func available() throws {
        _ = try TestPostgres.serverOrSkip()
        #expect(StoreBackend.available == [.sqlite, .postgres])
    }

    static let tables = [
        "assignment", "material", "material_vector", "message", "message_audio", "message_image", "parley_schema_migrations", "response_cache",
        "spending", "stash_item", "sync_state", "thread",
    ]

    @Test("an empty database gets every table and each migration recorded once; opening again changes nothing")
    func schema() async throws {
        try await withDatabase { database in
            let store = try await PostgresConversationStore.open(database)
            await store.close()
            let tables =
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ("
                + Self.tables.map { "'\($0)'" }.joined(separator: ", ") + ")"
            #expect(try await TestPostgres.integer(tables, on: database) == Self.tables.count)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM parley_schema_migrations", on: database) == PostgresSchemaCount.migrations)
            #expect(
                try await TestPostgres.integer(
                    "SELECT COUNT(*) FROM parley_schema_migrations WHERE name IN ('v1-threads-messages-stash-spending-cache', 'v2-materials', "
                        + "'v3-synced-materials-assignments-sync-state')", on: database) == 3)

            let again = try await PostgresConversationStore.open(database)
            let thread = try await again.createThread(title: "kept", settings: ThreadSettings(), owner: .local)
            await again.close()
            let third = try await PostgresConversationStore.open(database)
            #expect(try await third.thread(thread.id, owner: .local) == thread)
            await third.close()
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM parley_schema_migrations", on: database) == PostgresSchemaCount.migrations)
        }
    }

    @Test("a database at v2 is migrated: its materials are kept, without origin, and the new tables work")
    func migratesFromV2() async throws {
        try await withDatabase { database in
            let old = PostgresSchema.migrations.prefix { $0.name != "v3-synced-materials-assignments-sync-state" }
            #expect(old.map(\.name) == ["v1-threads-messages-stash-spending-cache", "v2-materials"])
            try await TestPostgres.run(
                "CREATE TABLE parley_schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                on: database)
            for migration in old {
                for statement in migration.statements { try await TestPostgres.run(statement, on: database) }
                try await TestPostgres.run("INSERT INTO parley_schema_migrations (name) VALUES ('\(migration.name)')", on: database)
            }
            try await TestPostgres.run(
                """
                INSERT INTO material (owner, created_at, title, kind, source, text, page_count, read_by)
                VALUES ('', now(), 'Old', 'text', 'old.txt', 'kept', 1, 'file'), ('key-a11a', now(), 'Hers', 'text', 'hers.txt', 'hers', 1, 'file')
                """, on: database)

            let store = try await PostgresConversationStore.open(database)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM parley_schema_migrations", on: database) == PostgresSchemaCount.migrations)
            let kept = try await store.materials(owner: .local)
            #expect(kept.map(\.text) == ["kept"] && kept.first?.origin == nil)
            #expect(try await store.materials(owner: .key("key-a11a")).map(\.text) == ["hers"])
            let synced = try await store.saveMaterial(SyncStoreTests.drive("new"), owner: .local)
            #expect(try await store.saveMaterial(SyncStoreTests.drive("newer"), owner: .local).id == synced.id)
            #expect(try await store.materials(owner: .local).count == 2)
            try await store.saveAssignment(NewAssignment(origin: "gmail:M#0", source: "gmail", title: "t", dueDay: "2026-03-09"), owner: .local)
            try await store.setSyncState("google.gmail.history-id", to: "42", owner: .local)
            #expect(try await store.syncState("google.gmail.history-id", owner: .local) == "42")
            await store.close()
        }
    }

    @Test("instances that start at once on an empty database migrate it once and all work")
    func concurrentStarts() async throws {
        try await withDatabase { database in
            let stores = try await withThrowingTaskGroup(of: PostgresConversationStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresConversationStore.open(database) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(stores.count == 4)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM parley_schema_migrations", on: database) == PostgresSchemaCount.migrations)
            let thread = try await stores[0].createThread(title: "from the first", settings: ThreadSettings(), owner: .local)
            for store in stores {
                #expect(try await store.threads(owner: .local).map(\.thread.id) == [thread.id])
                await store.close()
            }
        }
    }

    @Test("a pool of two connections serves sixteen calls at once, and never opens a third")
    func poolSize() async throws {
        try await withDatabase { database in
            var small = database
            small.poolSize = 2
            let store = try await PostgresConversationStore.open(small)
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let thread = try await store.createThread(title: "call \(index)", settings: ThreadSettings(), owner: .key("pool"))
                        _ = try await store.threads(owner: .key("pool"))
                        return thread.id
                    }
                }
                return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
            }
            #expect(ids.count == 16)
            let open = try await TestPostgres.integer(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", on: database)
            #expect(open <= 2, "\(open) connections open for a pool of 2")
            await store.close()
        }
    }

    @Test("the local user's rows keep '' as owner; a key's keep its id, never the key")
    func ownerColumn() async throws {
        try await withDatabase { database in
            let store = try await PostgresConversationStore.open(database)
            _ = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            _ = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .key("key-a11ce"))
            await store.close()
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM thread WHERE owner = ''", on: database) == 1)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM thread WHERE owner = 'key-a11ce'", on: database) == 1)
        }
    }

    @Test("a recording kept by one instance is served by another, whose machine lacks the file")
    func audioAcrossInstances() async throws {
        try await withDatabase { database in
            let first = try await PostgresConversationStore.open(database)
            let second = try await PostgresConversationStore.open(database)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-pg-audio-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("turn.wav")
            try Data("RIFF-kept-by-the-first".utf8).write(to: file)

            let thread = try await first.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await first.append(NewMessage(role: .user, text: "hi"), to: thread.id, owner: .local)
            try await first.attachAudio(message: message.id, file: file, owner: .local)
            try FileManager.default.removeItem(at: file)
            #expect(try await second.audio(message: message.id, owner: .local) == Data("RIFF-kept-by-the-first".utf8))
            try await second.deleteAudio(message: message.id, owner: .local)
            #expect(try await first.audio(message: message.id, owner: .local) == nil)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM message_audio", on: database) == 0)
            await first.close()
            await second.close()
        }
    }

    @Test("a server that is not there is refused at once, with an error that names it without the password")
    func unreachable() async throws {
        // A port nothing listens on.
        let url = DatabaseURL(host: "127.0.0.1", port: 9, user: "parley", password: "s3cret-pw", database: "parley", tls: .disable)
        let error = await #expect(throws: StoreError.self) { try await PostgresConversationStore.open(url, timeout: .seconds(60)) }
        let text = try #require(error?.description)
        // Refused at once, not given up on after the timeout.
        #expect(!text.contains("no answer within"), "\(text)")
        #expect(text.contains("postgresql://parley@127.0.0.1:9/parley"))
        #expect(text.contains("PARLEY_DATABASE_URL"))
        #expect(!text.contains("s3cret-pw"))
    }

    @Test("a wrong password or database is refused at open, with the server's reason")
    func refused() async throws {
        let server = try TestPostgres.serverOrSkip()
        let error = await #expect(throws: StoreError.self) {
            try await PostgresConversationStore.open(server.database("parley_no_such_database"), timeout: .seconds(10))
        }
        #expect(error?.description.contains("parley_no_such_database") == true)
    }
}

/// How many migrations the PostgreSQL schema has.
enum PostgresSchemaCount {
    static let migrations = 8
}
