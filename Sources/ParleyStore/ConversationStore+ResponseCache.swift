import Foundation
import GRDB

extension ConversationStore {
    /// The response cached under `key` for `owner`, unless it has expired at `now`.
    public func cachedResponse(_ key: String, owner: Owner = .local, at now: Date) throws(StoreError) -> CachedResponse? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT body, created_at, expires_at FROM response_cache
                        WHERE key = ? AND owner IS ? AND expires_at > ?
                        """, arguments: [key, owner.id, now])
            else { return nil }
            return CachedResponse(
                key: key, body: try row.decode(forColumn: "body"),
                createdAt: try row.decode(forColumn: "created_at"), expiresAt: try row.decode(forColumn: "expires_at"))
        }
    }

    /// Caches `response` for `owner`, replacing what `owner` cached under its key. (A key that
    /// holds another owner's response is left alone: callers hash the owner into the key, so
    /// this happens only by accident, and then nothing crosses between owners.)
    public func cacheResponse(_ response: CachedResponse, owner: Owner = .local) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO response_cache (key, owner, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, body = excluded.body,
                        created_at = excluded.created_at, expires_at = excluded.expires_at
                    WHERE response_cache.owner IS excluded.owner
                    """, arguments: [response.key, owner.id, response.body, response.createdAt, response.expiresAt])
        }
    }

    /// Deletes every response that has expired at `now`; returns how many.
    @discardableResult
    public func removeExpiredResponses(at now: Date) throws(StoreError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM response_cache WHERE expires_at <= ?", arguments: [now])
            return db.changesCount
        }
    }
}
