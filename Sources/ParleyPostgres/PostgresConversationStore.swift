import Foundation
import Logging
import ParleyStore
import PostgresNIO

/// Conversations in a PostgreSQL database that several `parley serve` instances share: the
/// ``ConversationStoring`` behind the server when `PARLEY_DATABASE_URL=postgres://…` is set.
///
/// It keeps exactly what the SQLite ``ConversationStore`` keeps, with the same rules: every
/// call takes an ``Owner`` and its SQL sees that owner's rows only; each call is one
/// transaction; ids are never reused; deleting a thread cascades to its messages, images and
/// recordings. Kept recordings are written to the database too (as well as to the file the
/// journal wrote), so that any instance can serve them.
///
/// ```swift
/// let store = try await PostgresConversationStore.open(try DatabaseURL(parsing: url))
/// defer { Task { await store.close() } }
/// let thread = try await store.createThread(title: "Trip", settings: ThreadSettings(), owner: .local)
/// ```
///
/// The store holds a pool of connections (postgres-nio's `PostgresClient`), running from
/// ``open(_:timeout:now:logger:)`` until ``close()``.
public final class PostgresConversationStore: ConversationStoring {
    /// Where the database is, without its password.
    public let url: DatabaseURL
    /// How long one call may wait for a connection and its answer before it fails.
    public let timeout: Duration

    let client: PostgresClient
    let logger: Logger
    let now: @Sendable () -> Date
    private let running: Task<Void, Never>

    private init(url: DatabaseURL, client: PostgresClient, timeout: Duration, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.url = url
        self.client = client
        self.timeout = timeout
        self.now = now
        self.logger = logger
        running = Task { await client.run() }
    }

    deinit {
        running.cancel()
    }

    /// Connects to the database at `url`, brings its schema up to date (creating the tables
    /// when they are absent; instances that start together take turns), and starts the pool.
    ///
    /// - Parameters:
    ///   - url: The database (`PARLEY_DATABASE_URL`).
    ///   - timeout: How long connecting, and later each call, may take.
    ///   - now: The clock that dates threads, messages, stash items and cached responses.
    ///   - logger: Where the store and its pool log (never the password).
    /// - Throws: ``StoreError/cannotConnect(location:reason:)`` when the server cannot be
    ///   reached or logged in to, or the schema cannot be migrated.
    public static func open(
        _ url: DatabaseURL, timeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = defaultLogger
    ) async throws(StoreError) -> PostgresConversationStore {
        let tls: PostgresClient.Configuration.TLS
        do {
            tls = try url.clientTLS()
        } catch {
            throw .cannotConnect(location: url.description, reason: "TLS cannot be set up: \(error)")
        }
        // One plain connection first: it fails at once when the server is unreachable or
        // refuses the login (a pool would keep retrying), and it runs the migrations.
        do {
            let connection = try await withTimeout(timeout) {
                try await PostgresConnection.connect(configuration: try url.connectionConfiguration(timeout: timeout), id: 1, logger: logger)
            }
            do {
                try await PostgresSchema.migrate(connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw .cannotConnect(location: url.description, reason: StoreError.postgresReason(error))
        }
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password,
            database: url.database, tls: tls)
        configuration.options.connectTimeout = timeout
        configuration.options.maximumConnections = url.poolSize
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        logger.info("conversations in \(url) (at most \(url.poolSize) connections)")
        return PostgresConversationStore(url: url, client: client, timeout: timeout, now: now, logger: logger)
    }

    /// The database URL without its password.
    public var location: String { url.description }

    /// The logger a store gets unless told otherwise: notices and above (the pool's
    /// connection churn is logged at `info`).
    public static var defaultLogger: Logger {
        var logger = Logger(label: "parley.store.postgres")
        logger.logLevel = .notice
        return logger
    }

    /// Stops the pool and closes its connections. Calls made afterwards fail.
    public func close() async {
        running.cancel()
        _ = await running.value
    }

    // MARK: - Running queries

    /// Runs `body` on a pooled connection inside one transaction (committed when it returns,
    /// rolled back when it throws), within `limit` (the store's timeout unless given); every
    /// failure becomes a ``StoreError``.
    func transaction<T: Sendable>(
        readOnly: Bool = false, within limit: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let client = client
        let logger = logger
        do {
            return try await Self.withTimeout(limit ?? timeout) {
                try await client.withTransaction(logger: logger) { connection in
                    if readOnly {
                        // One snapshot for every read of the call, as SQLite's read transactions give.
                        try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                    }
                    return try await body(connection)
                }
            }
        } catch {
            throw StoreError.wrappingPostgres(error, location: location)
        }
    }

    /// Runs one statement on a pooled connection and collects its rows (a statement is its
    /// own transaction).
    func rows(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        let client = client
        let logger = logger
        do {
            return try await Self.withTimeout(timeout) { try await client.query(query, logger: logger).collect() }
        } catch {
            throw StoreError.wrappingPostgres(error, location: location)
        }
    }

    /// Runs `operation`, failing with ``TimedOut`` when it has not finished within `limit` (it
    /// is then cancelled: a connection lease that waits is given up).
    static func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw TimedOut(limit: limit) }
            return value
        }
    }

    /// A call that did not finish in time.
    struct TimedOut: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "no answer within \(limit.components.seconds) s" }
    }
}
