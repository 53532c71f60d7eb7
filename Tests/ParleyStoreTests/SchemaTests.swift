import Foundation
import ParleyCore
import ParleyStore
import Testing

@Suite("Opening the database")
struct SchemaTests {
    @Test("a new file gets the whole schema, in WAL mode with FULL sync and foreign keys on")
    func newFile() throws {
        let fixture = try StoreFixture()
        #expect(fixture.exists(fixture.databaseURL))
        let diagnostics = try fixture.store.diagnostics()
        #expect(diagnostics.journalMode == "wal")
        #expect(diagnostics.synchronous == 2)
        #expect(diagnostics.foreignKeys)
        #expect(
            diagnostics.appliedMigrations == [
                "v1-threads-messages-stash", "v2-spending", "v3-message-images-structured-result", "v4-owners", "v5-response-cache", "v6-materials",
                "v7-synced-materials-assignments-sync-state", "v8-tool-calls", "v9-material-search", "v10-material-vectors",
            ])
        for table in ["thread", "message", "message_image", "stash_item", "material", "material_vector", "assignment", "sync_state", "grdb_migrations"] {
            #expect(diagnostics.tables.contains(table), "missing table \(table)")
        }
    }

    @Test("reopening is idempotent and keeps what was saved")
    func reopen() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: "kept", settings: ThreadSettings())
        let message = try fixture.store.append(NewMessage(role: .user, text: "hello", rawTranscript: "hello"), to: thread.id)

        let again = try fixture.reopen()
        let third = try fixture.reopen()
        #expect(
            try again.diagnostics().appliedMigrations == [
                "v1-threads-messages-stash", "v2-spending", "v3-message-images-structured-result", "v4-owners", "v5-response-cache", "v6-materials",
                "v7-synced-materials-assignments-sync-state", "v8-tool-calls", "v9-material-search", "v10-material-vectors",
            ])
        #expect(try third.thread(thread.id) == thread)
        #expect(try third.messages(in: thread.id) == [message])
        #expect(try third.threads().count == 1)
    }

    @Test("parent directories are created")
    func createsDirectories() throws {
        let fixture = try StoreFixture()
        let nested = fixture.directory.appendingPathComponent("a/b/c/parley.sqlite")
        let store = try ConversationStore(path: nested)
        #expect(try store.threads().isEmpty)
        #expect(fixture.exists(nested))
    }

    @Test("a file that is not a database cannot be opened, and the error says what to do")
    func notADatabase() throws {
        let fixture = try StoreFixture()
        let bogus = fixture.directory.appendingPathComponent("bogus.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: bogus)
        let error = #expect(throws: StoreError.self) { try ConversationStore(path: bogus) }
        #expect(error?.description.contains(bogus.path) == true)
        #expect(error?.description.contains("PARLEY_HOME") == true)
    }

    @Test("a path under a regular file cannot be opened")
    func parentIsAFile() throws {
        let fixture = try StoreFixture()
        let file = fixture.directory.appendingPathComponent("plain.txt")
        try Data("x".utf8).write(to: file)
        let error = #expect(throws: StoreError.self) {
            try ConversationStore(path: file.appendingPathComponent("parley.sqlite"))
        }
        #expect(error?.description.hasPrefix("cannot open the conversation database") == true)
    }

    @Test("the default file is parley.sqlite in Parley's home")
    func defaultURL() {
        let paths = ParleyPaths(home: URL(fileURLWithPath: "/data/parley", isDirectory: true))
        #expect(ConversationStore.defaultURL(paths: paths).path == "/data/parley/parley.sqlite")
        let fromEnvironment = ParleyPaths.current(environment: ["PARLEY_HOME": "/srv/p"])
        #expect(ConversationStore.defaultURL(paths: fromEnvironment).path == "/srv/p/parley.sqlite")
    }
}

@Suite("The spending ledger")
struct SpendingLedgerTests {
    @Test("charges are summed per month, survive reopening, and restore a tracker's budget state")
    func ledger() async throws {
        let fixture = try StoreFixture()
        let march = Date(timeIntervalSince1970: 1_772_323_200)  // 2026-03-01T00:00:00Z
        try fixture.store.record(cost: 1.25, provider: "openai (gpt-4o-mini)", at: march.addingTimeInterval(3_600))
        try fixture.store.record(cost: 2.5, provider: "anthropic (claude)", at: march.addingTimeInterval(86_400 * 10))
        try fixture.store.record(cost: 100, provider: "openai (gpt-4o-mini)", at: march.addingTimeInterval(-1))  // February
        let reopened = try ConversationStore(path: fixture.databaseURL)
        #expect(try reopened.spent(from: march, to: march.addingTimeInterval(86_400 * 31)) == 3.75)

        let tracker = SpendingTracker(
            monthlyBudget: 4, alertThreshold: 3, prices: PriceTable(), ledger: reopened,
            now: { march.addingTimeInterval(86_400 * 20) })
        try await tracker.restore()
        #expect(await tracker.spent == 3.75)
        #expect(await tracker.state == .alert)
    }
}
