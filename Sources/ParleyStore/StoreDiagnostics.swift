/// How the database is set up, for `parley doctor` and for tests.
public struct StoreDiagnostics: Sendable, Equatable {
    /// The journal mode (`"wal"`).
    public var journalMode: String
    /// The `synchronous` setting of the writing connection (2 = FULL).
    public var synchronous: Int
    /// Whether foreign keys are enforced.
    public var foreignKeys: Bool
    /// The names of the applied migrations, in order.
    public var appliedMigrations: [String]
    /// The names of the tables, sorted (GRDB's and SQLite's own included).
    public var tables: [String]

    /// Creates a diagnostics value.
    public init(journalMode: String, synchronous: Int, foreignKeys: Bool, appliedMigrations: [String], tables: [String]) {
        self.journalMode = journalMode
        self.synchronous = synchronous
        self.foreignKeys = foreignKeys
        self.appliedMigrations = appliedMigrations
        self.tables = tables
    }
}
