import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Writes a charge of `cost` US dollars for `provider`: every instance's charges count
    /// against one monthly budget.
    public func record(cost: Double, provider: String, at date: Date) async throws {
        _ = try await rows("INSERT INTO spending (provider, cost_usd, created_at) VALUES (\(provider), \(cost), \(date))")
    }

    /// The sum of the charges in `[start, end)`, in US dollars.
    public func spent(from start: Date, to end: Date) async throws -> Double {
        let rows = try await rows(
            """
            SELECT COALESCE(SUM(cost_usd), 0)::double precision FROM spending WHERE created_at >= \(start) AND created_at < \(end)
            """)
        return try Self.decoding { try rows.first?.decode(Double.self) ?? 0 }
    }
}
