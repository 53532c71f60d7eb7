import Foundation
import GRDB
import ParleyCore

/// Conversations on disk: threads, their messages (raw and edited transcripts, timings, usage,
/// barge-in), kept recordings and the stash, in one SQLite file.
///
/// The file is opened as a GRDB `DatabasePool` in WAL mode with `synchronous=FULL`, so every
/// committed message survives the process being killed or the power failing, and readers (such
/// as `parley history` in another process) never block the writer. Each method is one
/// transaction. The store is `Sendable`: call it from any task or thread; writes are serialized.
///
/// Threads and stash items belong to an ``Owner``: the local user, or one API key of
/// `parley serve`. Every method that reads or changes them (and their messages and audio)
/// takes the owner and sees that owner's rows only; another owner's id is not found. The
/// owner defaults to ``Owner/local``, the command line's.
public final class ConversationStore: Sendable {
    /// The database file.
    public let url: URL

    let pool: DatabasePool

    /// Opens the database at `path`, creating it and its parent directories if needed, and
    /// brings its schema up to date. The file (with its `-wal` and `-shm` files) is made
    /// readable and writable by its owner only, mode 0600, where the file system allows it.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - now: The clock that dates threads, messages and stash items (the system clock unless
    ///     a test drives time).
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` when the directory cannot be created,
    ///   the file is not a database, or the schema cannot be migrated.
    public init(path: URL, now: @escaping @Sendable () -> Date = { Date() }) throws(StoreError) {
        url = path
        do {
            try FileManager.default.createDirectory(
                at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path.path, reason: StoreError.reason(error))
        }
        Self.restrictToOwner(path)
        var configuration = Configuration()
        configuration.label = "ParleyStore"
        configuration.foreignKeysEnabled = true
        configuration.transactionClock = .custom { _ in now() }
        // Another process (e.g. `parley history delete`) may hold the write lock briefly.
        configuration.busyMode = .timeout(10)
        do {
            pool = try Self.holdingOpenLock(path) {
                let pool = try DatabasePool(path: path.path, configuration: configuration)
                // GRDB turns WAL on with synchronous=NORMAL on the writing connection, which
                // may lose the last commits on power loss. FULL syncs the log on every commit,
                // so a committed turn is durable. The pool keeps this one writing connection.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                try StoreSchema.migrator.migrate(pool)
                return pool
            }
        } catch {
            throw .cannotOpen(path: path.path, reason: StoreError.reason(error))
        }
        Self.restrictToOwner(path)
    }

    /// Runs `body` (opening the pool, turning WAL on, the migrations) holding an exclusive lock
    /// on `<database>.lock`, so that two processes opening a database at once (a server and
    /// `parley talk`, say) do it one after the other:
    /// - GRDB reads which migrations are applied before it takes SQLite's write lock, so two
    ///   first opens both created the tables, and the second failed with "table thread
    ///   already exists".
    /// - With only the migrations under the lock, four opens of a new file at once failed
    ///   with "database is locked" in most runs of `ConcurrencyTests` (SQLite does not wait
    ///   out every lock while a file's WAL mode is set up); opening under it too, none did.
    /// Where the lock file cannot be made (a read-only directory), the open runs unguarded.
    private static func holdingOpenLock<T>(_ path: URL, _ body: () throws -> T) throws -> T {
        let descriptor = open(path.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return try body() }
        // Closing the file releases the lock.
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? file.close() }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        return try body()
    }

    /// Makes the database and its WAL files readable and writable by their owner only (mode
    /// 0600): they hold conversations, and a sign-in's OAuth tokens. Called before the file is
    /// opened (a new file is created with that mode, and SQLite gives its `-wal` and `-shm`
    /// files the database's mode) and again after, for files that an older version left
    /// readable by others. A file system without permissions, or a file owned by another
    /// account, keeps what it has: opening goes on, and nothing is logged.
    private static func restrictToOwner(_ path: URL) {
        // Created empty, only if absent (O_EXCL: never over a database another process has
        // just made); SQLite takes an empty file for a new database.
        let created = open(path.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 { try? FileHandle(fileDescriptor: created, closeOnDealloc: true).close() }
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let file = path.path + suffix
            guard files.fileExists(atPath: file) else { continue }
            try? files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }

    /// The default database file: `parley.sqlite` in Parley's data directory
    /// (`$PARLEY_HOME`, else `$XDG_DATA_HOME/parley`, else `~/.local/share/parley`).
    public static func defaultURL(paths: ParleyPaths = .current()) -> URL {
        paths.home.appendingPathComponent("parley.sqlite")
    }

    /// How the database is set up: journal mode, durability, foreign keys, migrations, tables.
    public func diagnostics() throws(StoreError) -> StoreDiagnostics {
        do {
            return try pool.writeWithoutTransaction { db in
                let journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
                let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
                let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                return StoreDiagnostics(
                    journalMode: journalMode, synchronous: synchronous, foreignKeys: foreignKeys,
                    appliedMigrations: try StoreSchema.migrator.appliedMigrations(db), tables: tables)
            }
        } catch {
            throw .wrapping(error)
        }
    }

    /// Runs `body` in a read transaction, turning every failure into a ``StoreError``.
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw .wrapping(error)
        }
    }

    /// Runs `body` in a write transaction, turning every failure into a ``StoreError``.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw .wrapping(error)
        }
    }
}
