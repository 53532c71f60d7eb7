import Foundation
import GRDB
import ParleyCore

extension ConversationStore: SpendingLedger {
    /// Writes a charge of `cost` US dollars for `provider`.
    public func record(cost: Double, provider: String, at date: Date) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO spending (provider, cost_usd, created_at) VALUES (?, ?, ?)",
                arguments: [provider, cost, date])
        }
    }

    /// The sum of the charges in `[start, end)`, in US dollars.
    public func spent(from start: Date, to end: Date) throws -> Double {
        try read { db in
            try Double.fetchOne(
                db, sql: "SELECT COALESCE(SUM(cost_usd), 0) FROM spending WHERE created_at >= ? AND created_at < ?",
                arguments: [start, end]) ?? 0
        }
    }
}
