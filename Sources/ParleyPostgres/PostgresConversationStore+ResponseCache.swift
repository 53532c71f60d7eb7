import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// The response cached under `key` for `owner`, unless it has expired at `now`.
    public func cachedResponse(_ key: String, owner: Owner, at now: Date) async throws(StoreError) -> CachedResponse? {
        let rows = try await rows(
            """
            SELECT body, created_at, expires_at FROM response_cache
            WHERE key = \(key) AND owner = \(owner.column) AND expires_at > \(now)
            """)
        return try Self.decoding {
            try rows.first.map { row in
                let (body, createdAt, expiresAt) = try row.decode((Data, Date, Date).self)
                return CachedResponse(key: key, body: body, createdAt: createdAt, expiresAt: expiresAt)
            }
        }
    }

    /// Caches `response` for `owner`, replacing what `owner` cached under its key (a key that
    /// holds another owner's response is left alone).
    public func cacheResponse(_ response: CachedResponse, owner: Owner) async throws(StoreError) {
        _ = try await rows(
            """
            INSERT INTO response_cache (key, owner, body, created_at, expires_at)
            VALUES (\(response.key), \(owner.column), \(ByteBuffer(bytes: response.body)), \(response.createdAt), \(response.expiresAt))
            ON CONFLICT (key) DO UPDATE SET body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
            WHERE response_cache.owner = excluded.owner
            """)
    }

    /// Deletes every response that has expired at `now`; returns how many.
    @discardableResult
    public func removeExpiredResponses(at now: Date) async throws(StoreError) -> Int {
        let rows = try await rows("DELETE FROM response_cache WHERE expires_at <= \(now) RETURNING key")
        return rows.count
    }
}
