import Foundation
import GRDB

extension ConversationStore {
    /// Everything the store holds but the response cache, read from one snapshot: every
    /// owner's threads with their messages (images included; a kept recording as its path),
    /// stash, materials, assignments and sync state, and the spending ledger. What
    /// `parley store copy` moves into PostgreSQL.
    ///
    /// Rows are in the order they were saved (by id). Recordings are not read here: each
    /// message names its file in ``StoredMessage/audioPath``.
    public func contents() throws(StoreError) -> StoreContents {
        try read { db in
            let owners = try Self.owners(db).map { owner in
                OwnerContents(
                    owner: owner,
                    threads: try Self.exportedThreads(db, owner: owner, newestFirst: false),
                    stash:
                        try StashItemRecord
                        .filter(Column(StashItemRecord.CodingKeys.owner) == owner.id)
                        .order(Column(StashItemRecord.CodingKeys.id))
                        .fetchAll(db).map { try $0.stored() },
                    materials:
                        try MaterialRecord
                        .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                        .order(Column(MaterialRecord.CodingKeys.id))
                        .fetchAll(db).map { try $0.stored() },
                    assignments:
                        try AssignmentRecord
                        .filter(Column(AssignmentRecord.CodingKeys.owner) == owner.id)
                        .order(Column(AssignmentRecord.CodingKeys.id))
                        .fetchAll(db).map { try $0.stored() },
                    syncState: try Row.fetchAll(
                        db, sql: "SELECT key, value, updated_at FROM sync_state WHERE owner IS ? ORDER BY key",
                        arguments: [owner.id]
                    ).map { row in
                        SyncStateValue(
                            key: try row.decode(forColumn: "key"), value: try row.decode(forColumn: "value"),
                            updatedAt: try row.decode(forColumn: "updated_at"))
                    })
            }
            let spending = try Row.fetchAll(db, sql: "SELECT provider, cost_usd, created_at FROM spending ORDER BY id").map { row in
                SpendingCharge(
                    provider: try row.decode(forColumn: "provider"), costUSD: try row.decode(forColumn: "cost_usd"),
                    createdAt: try row.decode(forColumn: "created_at"))
            }
            return StoreContents(owners: owners, spending: spending)
        }
    }

    /// Every owner with a row in any owned table: the local user first (when it has any),
    /// then the keys' owners by id.
    private static func owners(_ db: Database) throws -> [Owner] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT owner FROM thread UNION SELECT owner FROM stash_item UNION SELECT owner FROM material
                UNION SELECT owner FROM assignment UNION SELECT owner FROM sync_state
                """)
        let ids = try rows.map { row -> String? in try row.decode(forColumn: "owner") }
        let keys = ids.compactMap { $0 }.sorted().map(Owner.key)
        return (ids.contains(nil) ? [.local] : []) + keys
    }
}
