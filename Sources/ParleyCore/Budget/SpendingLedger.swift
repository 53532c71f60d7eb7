import Foundation

/// Where a ``SpendingTracker`` writes charges, so that a month's spending holds across
/// processes (`ParleyStore` keeps them in SQLite).
public protocol SpendingLedger: Sendable {
    /// Writes a charge.
    func record(cost: Double, provider: String, at date: Date) async throws
    /// The sum of the charges in `[start, end)`.
    func spent(from start: Date, to end: Date) async throws -> Double
}
