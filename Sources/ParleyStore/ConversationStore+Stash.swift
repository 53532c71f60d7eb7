import Foundation
import GRDB

extension ConversationStore {
    /// Saves an item to the stash. When only ``NewStashItem/messageID`` is given, the thread is
    /// taken from the message.
    ///
    /// - Throws: ``StoreError/threadNotFound(_:)`` or ``StoreError/messageNotFound(_:)`` when the
    ///   item refers to a thread or message that does not exist.
    @discardableResult
    public func stash(_ item: NewStashItem) throws(StoreError) -> StashItem {
        try write { db in
            var item = item
            if let messageID = item.messageID {
                let message = try Self.fetchMessage(db, id: messageID)
                item.threadID = item.threadID ?? message.threadID
            }
            if let threadID = item.threadID, try !ThreadRecord.exists(db, key: threadID) {
                throw StoreError.threadNotFound(threadID)
            }
            var record = StashItemRecord(item, createdAt: try db.transactionDate)
            try record.insert(db)
            guard let id = record.id, let saved = try StashItemRecord.fetchOne(db, key: id) else {
                throw StoreError.database(reason: "the stashed item could not be read back")
            }
            return try saved.stored()
        }
    }

    /// The stash, newest first.
    public func stashItems() throws(StoreError) -> [StashItem] {
        try read { db in
            try StashItemRecord
                .order(Column(StashItemRecord.CodingKeys.id).desc)
                .fetchAll(db)
                .map { try $0.stored() }
        }
    }

    /// Removes an item from the stash.
    ///
    /// - Throws: ``StoreError/stashItemNotFound(_:)`` when no item has the id.
    public func deleteStashItem(_ id: Int64) throws(StoreError) {
        try write { db in
            guard try StashItemRecord.deleteOne(db, key: id) else { throw StoreError.stashItemNotFound(id) }
        }
    }
}
