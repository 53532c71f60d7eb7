import Foundation
import Logging
import ParleyStore
import PostgresNIO

/// The PostgreSQL server the tests use: the one `PARLEY_TEST_POSTGRES_URL` names (scripts/test
/// starts a throwaway cluster on 127.0.0.1 with `scripts/postgres` and sets it). Each test gets
/// a database of its own, created empty and dropped afterwards.
public enum TestPostgres {
    /// The variable that names the server: `postgres://USER@127.0.0.1:PORT/postgres`.
    public static let variable = "PARLEY_TEST_POSTGRES_URL"

    /// Why PostgreSQL tests cannot run, and what to do.
    public static let unavailable = """
        PostgreSQL is not available: \(variable) is not set. Start a throwaway server with \
        `eval "$(scripts/postgres start)"` (or run scripts/test, which does) and run the tests again.
        """

    /// Set (to `1`) by scripts/test: PostgreSQL tests must run, and fail without a server
    /// rather than being skipped.
    public static let requiredVariable = "PARLEY_TEST_POSTGRES_REQUIRED"

    /// Why a test that needs PostgreSQL could not have it.
    public struct Unavailable: Error, CustomStringConvertible {
        public init() {}
        public var description: String { TestPostgres.unavailable }
    }

    /// Whether PostgreSQL tests must run (see ``requiredVariable``).
    public static func isRequired(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment[requiredVariable] == "1"
    }

    /// Whether PostgreSQL tests should run: a server is configured, or scripts/test requires
    /// one (then its absence is a failure, not a skip).
    public static func shouldRun(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        !(environment[variable] ?? "").isEmpty || isRequired(environment: environment)
    }

    /// The server's URL, or `nil` when the variable is not set.
    public static func serverURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DatabaseURL? {
        guard let text = environment[variable], !text.isEmpty else { return nil }
        return try DatabaseURL(parsing: text)
    }

    /// `url` written out in full, password included, as `PARLEY_DATABASE_URL` takes it.
    public static func settingValue(_ url: DatabaseURL) -> String {
        let password = url.password.map { ":" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        let mode = url.tls == .require ? "require" : url.tls == .prefer ? "prefer" : "disable"
        return "postgres://\(url.user)\(password)@\(url.host):\(url.port)/\(url.database)?sslmode=\(mode)"
    }

    /// Creates an empty database on the server and returns its URL.
    public static func createDatabase(on server: DatabaseURL) async throws -> DatabaseURL {
        let name = "parley_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await run("CREATE DATABASE \(name)", on: server)
        return server.database(name)
    }

    /// Drops a database made by ``createDatabase(on:)``, closing what is still connected to it.
    public static func dropDatabase(_ database: DatabaseURL, on server: DatabaseURL) async throws {
        guard database.database.hasPrefix("parley_test_"), database.database.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            return
        }
        try await run("DROP DATABASE IF EXISTS \(database.database) WITH (FORCE)", on: server)
    }

    /// The integer the query `sql` answers on `database` (a count, say).
    public static func integer(_ sql: String, on database: DatabaseURL) async throws -> Int {
        try await withConnection(database) { connection, logger in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    /// Runs one statement on `database`.
    public static func run(_ sql: String, on database: DatabaseURL) async throws {
        try await withConnection(database) { connection, logger in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
        }
    }

    private static func withConnection<T: Sendable>(
        _ url: DatabaseURL,
        _ body: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = Logger(label: "parley.test-postgres")
        let configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password,
            database: url.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let value = try await body(connection, logger)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
