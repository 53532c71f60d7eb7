import Foundation

/// Everything a conversation store holds that is worth moving to another store: each owner's
/// threads (with every message, image and recording path), stash, materials, assignments and
/// sync state, and the spending ledger. The response cache is left out: it is a cache, and
/// refills itself.
///
/// Read one from a SQLite store with ``ConversationStore/contents()``; the PostgreSQL store
/// takes one in `importContents(_:intoNonEmpty:within:)` (`parley store copy`). Ids are the source
/// store's; a store that takes the contents may number the rows afresh, keeping the references
/// between them.
public struct StoreContents: Sendable, Equatable {
    /// What each owner has, the local user first, then the keys' owners by id.
    public var owners: [OwnerContents]
    /// The spending ledger's charges, oldest first. Charges belong to no owner: the budget is
    /// the whole store's.
    public var spending: [SpendingCharge]

    /// Creates store contents.
    public init(owners: [OwnerContents], spending: [SpendingCharge]) {
        self.owners = owners
        self.spending = spending
    }

    /// How many of each kind of row the contents hold.
    public var counts: StoreCounts {
        var counts = StoreCounts()
        counts.owners = owners.count
        for owner in owners {
            counts.threads += owner.threads.count
            for thread in owner.threads {
                counts.messages += thread.messages.count
                counts.images += thread.messages.reduce(0) { $0 + $1.content.images.count }
                counts.recordings += thread.messages.count { $0.audioPath != nil }
            }
            counts.stashItems += owner.stash.count
            counts.materials += owner.materials.count
            counts.assignments += owner.assignments.count
            counts.syncValues += owner.syncState.count
        }
        counts.spendingCharges = spending.count
        return counts
    }
}
