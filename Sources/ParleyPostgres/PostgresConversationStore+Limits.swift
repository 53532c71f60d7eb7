import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Adds what one instance spent of `owner`'s limits in the minute `minute` (Unix seconds
    /// / 60) to what every instance spent then.
    public func addSpending(owner: Owner, minute: Int64, requests: Int, tokens: Int) async throws {
        _ = try await rows(
            """
            INSERT INTO rate_spending (owner, minute, requests, tokens) VALUES (\(owner.column), \(minute), \(Int64(requests)), \(Int64(tokens)))
            ON CONFLICT (owner, minute) DO UPDATE
            SET requests = rate_spending.requests + EXCLUDED.requests, tokens = rate_spending.tokens + EXCLUDED.tokens
            """)
    }

    /// What every instance has spent in the minute `minute`, per key.
    public func spending(minute: Int64) async throws -> [Owner: (requests: Int, tokens: Int)] {
        let rows = try await rows("SELECT owner, requests, tokens FROM rate_spending WHERE minute = \(minute)")
        return try Self.decoding {
            var spent: [Owner: (requests: Int, tokens: Int)] = [:]
            for row in rows {
                let (owner, requests, tokens) = try row.decode((String, Int64, Int64).self)
                spent[owner.isEmpty ? .local : .key(owner)] = (Int(clamping: requests), Int(clamping: tokens))
            }
            return spent
        }
    }

    /// Forgets the spending of minutes before `minute`.
    public func forgetSpending(before minute: Int64) async throws {
        _ = try await rows("DELETE FROM rate_spending WHERE minute < \(minute)")
    }

    /// Claims `thread` for a response being written into it: `false` when another instance (or
    /// this one) holds it. A claim older than `stale` (its instance died mid-response) is taken
    /// over.
    public func claimThread(_ thread: Int64, stale: Duration) async throws -> Bool {
        let seconds = Double(stale.components.seconds)
        let rows = try await rows(
            """
            INSERT INTO response_claim (thread_id, claimed_at) VALUES (\(thread), now())
            ON CONFLICT (thread_id) DO UPDATE SET claimed_at = now()
            WHERE response_claim.claimed_at < now() - make_interval(secs => \(seconds))
            RETURNING thread_id
            """)
        return !rows.isEmpty
    }

    /// Releases a thread claimed with ``claimThread(_:stale:)``.
    public func releaseThread(_ thread: Int64) async throws {
        _ = try await rows("DELETE FROM response_claim WHERE thread_id = \(thread)")
    }
}

extension PostgresConversationStore: SharedConversationStoring {}
