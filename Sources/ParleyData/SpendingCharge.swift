import Foundation

/// One charge of the spending ledger (see `SpendingLedger`): what a paid provider cost, and
/// when.
public struct SpendingCharge: Sendable, Equatable {
    /// The provider that charged, e.g. `openai`.
    public var provider: String
    /// The charge, in US dollars.
    public var costUSD: Double
    /// When it was charged.
    public var createdAt: Date

    /// Creates a charge.
    public init(provider: String, costUSD: Double, createdAt: Date) {
        self.provider = provider
        self.costUSD = costUSD
        self.createdAt = createdAt
    }
}
