import Foundation
import GRDB

extension ConversationStore {
    /// Saves an item to `owner`'s stash. When only ``NewStashItem/messageID`` is given, the
    /// thread is taken from the message.
    ///
    /// - Throws: ``StoreError/threadNotFound(_:)`` or ``StoreError/messageNotFound(_:)`` when the
    ///   item refers to a thread or message that `owner` does not have.
    @discardableResult
    public func stash(_ item: NewStashItem, owner: Owner = .local) throws(StoreError) -> StashItem {
        try write { db in
            var item = item
            if let messageID = item.messageID {
                let message = try Self.fetchMessage(db, id: messageID, owner: owner)
                item.threadID = item.threadID ?? message.threadID
            }
            if let threadID = item.threadID, try !ThreadRecord.exists(db, id: threadID, owner: owner) {
                throw StoreError.threadNotFound(threadID)
            }
            var record = StashItemRecord(item, createdAt: try db.transactionDate, owner: owner)
            try record.insert(db)
            guard let id = record.id, let saved = try StashItemRecord.fetchOne(db, key: id) else {
                throw StoreError.database(reason: "the stashed item could not be read back")
            }
            return try saved.stored()
        }
    }

    /// `owner`'s stash, newest first.
    public func stashItems(owner: Owner = .local) throws(StoreError) -> [StashItem] {
        try read { db in
            try StashItemRecord
                .filter(Column(StashItemRecord.CodingKeys.owner) == owner.id)
                .order(Column(StashItemRecord.CodingKeys.id).desc)
                .fetchAll(db)
                .map { try $0.stored() }
        }
    }

    /// Removes an item from `owner`'s stash.
    ///
    /// - Throws: ``StoreError/stashItemNotFound(_:)`` when `owner` has no item with the id.
    public func deleteStashItem(_ id: Int64, owner: Owner = .local) throws(StoreError) {
        try write { db in
            let deleted =
                try StashItemRecord
                .filter(key: id)
                .filter(Column(StashItemRecord.CodingKeys.owner) == owner.id)
                .deleteAll(db)
            guard deleted > 0 else { throw StoreError.stashItemNotFound(id) }
        }
    }
}
