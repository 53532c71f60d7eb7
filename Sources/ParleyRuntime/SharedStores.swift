// PostgreSQL (postgres-nio) is brought by the "Server" trait: an app built with `traits: []`
// links no ParleyPostgres, and this file is empty there.
#if Server
import Logging
import ParleyPostgres
import ParleyStore

/// Opens the conversation store that several server instances share, from its URL
/// (`PARLEY_DATABASE_URL`): PostgreSQL today. The server and `parley store copy` open it here
/// and use it through `SharedConversationStoring` (ParleyStore), without naming its engine.
public enum SharedStores {
    /// The shared store at `url`, connected and migrated.
    ///
    /// - Throws: `StoreError.cannotConnect` when the server cannot be
    ///   reached or logged in to, or the schema cannot be migrated.
    public static func open(_ url: DatabaseURL, logger: Logger? = nil) async throws(StoreError) -> any SharedConversationStoring {
        if let logger { return try await PostgresConversationStore.open(url, logger: logger) }
        return try await PostgresConversationStore.open(url)
    }
}
#endif
