import GRDB

extension ConversationStore {
    /// SQLite's own check of the whole file: "ok" when the database is sound, else the
    /// problems it found, one per line.
    public func integrityCheck() throws(StoreError) -> String {
        try read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }
}
