import Foundation
import GRDB
import ParleyPostgres
import ParleyTestServers
import Synchronization
import Testing
@testable import ParleyStore

/// The implementations of ``ConversationStoring`` that the contract tests run against.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// ``ConversationStore``: a SQLite file in a fresh directory.
    case sqlite
    /// `PostgresConversationStore`: a fresh database on the test PostgreSQL server.
    case postgres

    var testDescription: String { rawValue }

    /// The backends the tests run on: SQLite always, PostgreSQL when a test server is there
    /// (``PostgresStoreTests`` says why it is skipped otherwise) or required.
    static var available: [StoreBackend] { TestPostgres.shouldRun() ? allCases : [.sqlite] }

    /// Runs `body` on a fresh, empty store of this backend, then closes it and throws its
    /// database away. Without a PostgreSQL server, a `postgres` case is cancelled (reported as
    /// skipped) with what to run.
    func withStore(_ body: (StoreUnderTest) async throws -> Void) async throws {
        let tested = try await StoreUnderTest.make(self)
        do {
            try await body(tested)
        } catch {
            await tested.finish()
            throw error
        }
        await tested.finish()
    }
}

/// A store of one backend, fresh for one test, with a clock the test moves by hand and a
/// directory for the audio files it attaches.
final class StoreUnderTest: Sendable {
    let backend: StoreBackend
    let store: any ConversationStoring
    let clock: TestClock
    let directory: URL
    /// The test's own database, for the `postgres` backend.
    private let database: DatabaseURL?
    private let server: DatabaseURL?
    private let opened = Mutex<[any ConversationStoring]>([])

    private init(
        backend: StoreBackend, store: any ConversationStoring, clock: TestClock, directory: URL,
        database: DatabaseURL?, server: DatabaseURL?
    ) {
        self.backend = backend
        self.store = store
        self.clock = clock
        self.directory = directory
        self.database = database
        self.server = server
    }

    static func make(_ backend: StoreBackend) async throws -> StoreUnderTest {
        let clock = TestClock()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-store-tests-\(UUID().uuidString)", isDirectory: true)
        switch backend {
        case .sqlite:
            let store = try ConversationStore(path: directory.appendingPathComponent("parley.sqlite"), now: { clock.now() })
            return StoreUnderTest(backend: backend, store: store, clock: clock, directory: directory, database: nil, server: nil)
        case .postgres:
            let server = try TestPostgres.serverOrSkip()
            let database = try await TestPostgres.createDatabase(on: server)
            let store = try await PostgresConversationStore.open(database, now: { clock.now() })
            return StoreUnderTest(backend: backend, store: store, clock: clock, directory: directory, database: database, server: server)
        }
    }

    /// Another store on the same database, as a later process (or another server instance)
    /// would open it.
    func reopen() async throws -> any ConversationStoring {
        let clock = clock
        let store: any ConversationStoring
        if let database {
            store = try await PostgresConversationStore.open(database, now: { clock.now() })
        } else {
            store = try ConversationStore(path: directory.appendingPathComponent("parley.sqlite"), now: { clock.now() })
        }
        opened.withLock { $0.append(store) }
        return store
    }

    /// How many rows `table` holds, whoever owns them.
    func rowCount(_ table: String) async throws -> Int {
        if let database { return try await TestPostgres.integer("SELECT COUNT(*) FROM \(table)", on: database) }
        let sqlite = try #require(store as? ConversationStore)
        return try await sqlite.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }

    /// Writes a small file standing for a kept recording and returns its URL.
    func makeAudioFile(_ name: String, content: String = "RIFF....WAVE") throws -> URL {
        let url = directory.appendingPathComponent("audio", isDirectory: true).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(content.utf8).write(to: url)
        return url
    }

    func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// Closes the stores, drops the test's database and removes its directory.
    func finish() async {
        for store in opened.withLock({ $0 }) + [store] { await store.close() }
        if let database, let server { try? await TestPostgres.dropDatabase(database, on: server) }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension TestPostgres {
    /// The test server's URL. Without one, the current test case is cancelled (reported as
    /// skipped, with what to run), or fails when scripts/test said PostgreSQL must be there.
    static func serverOrSkip() throws -> DatabaseURL {
        if let server = try serverURL() { return server }
        if isRequired() { throw Unavailable() }
        try Test.cancel(Comment(rawValue: unavailable))
    }
}
