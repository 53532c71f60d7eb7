import Foundation
import GRDB

/// A row of the `material` table.
struct MaterialRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "material"

    var id: Int64?
    var createdAt: Date
    var title: String
    var kind: String
    var source: String
    var text: String
    var pageCount: Int
    var readBy: String
    /// ``Owner/id``: `nil` for the local user.
    var owner: String?
    /// Where a synced material came from.
    var origin: String?

    enum CodingKeys: String, CodingKey {
        case id, title, kind, source, text, owner, origin
        case createdAt = "created_at"
        case pageCount = "page_count"
        case readBy = "read_by"
    }

    init(_ material: NewMaterial, createdAt: Date, owner: Owner) {
        self.createdAt = createdAt
        self.owner = owner.id
        title = material.title
        kind = material.kind
        source = material.source
        text = material.text
        pageCount = material.pageCount
        readBy = material.readBy
        origin = material.origin
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The public value; a row always has an id once saved.
    func stored() throws -> Material {
        guard let id else { throw StoreError.database(reason: "a material row has no id") }
        return Material(
            id: id, createdAt: createdAt, title: title, kind: kind, source: source, text: text, pageCount: pageCount, readBy: readBy, origin: origin)
    }
}
