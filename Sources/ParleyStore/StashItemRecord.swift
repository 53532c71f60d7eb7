import Foundation
import GRDB

/// A row of the `stash_item` table.
struct StashItemRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "stash_item"

    var id: Int64?
    var createdAt: Date
    var kind: String
    var text: String
    var threadID: Int64?
    var messageID: Int64?
    /// ``Owner/id``: `nil` for the local user.
    var owner: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, text, owner
        case createdAt = "created_at"
        case threadID = "thread_id"
        case messageID = "message_id"
    }

    init(_ item: NewStashItem, createdAt: Date, owner: Owner) {
        self.createdAt = createdAt
        self.owner = owner.id
        kind = item.kind
        text = item.text
        threadID = item.threadID
        messageID = item.messageID
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The public value; a row always has an id once saved.
    func stored() throws -> StashItem {
        guard let id else { throw StoreError.database(reason: "a stash row has no id") }
        return StashItem(id: id, createdAt: createdAt, kind: kind, text: text, threadID: threadID, messageID: messageID)
    }
}
