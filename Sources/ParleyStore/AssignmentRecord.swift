import Foundation
import GRDB

/// A row of the `assignment` table.
struct AssignmentRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "assignment"

    var id: Int64?
    var owner: String?
    var createdAt: Date
    var updatedAt: Date
    var origin: String
    var source: String
    var title: String
    var details: String
    var dueDay: String
    var dueAt: Date?
    var link: String?

    enum CodingKeys: String, CodingKey {
        case id, owner, origin, source, title, details, link
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case dueDay = "due_day"
        case dueAt = "due_at"
    }

    init(_ assignment: NewAssignment, createdAt: Date, owner: Owner) {
        self.owner = owner.id
        self.createdAt = createdAt
        updatedAt = createdAt
        origin = assignment.origin
        source = assignment.source
        title = assignment.title
        details = assignment.details
        dueDay = assignment.dueDay
        dueAt = assignment.dueAt
        link = assignment.link
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The public value; a row always has an id once saved.
    func stored() throws -> Assignment {
        guard let id else { throw StoreError.database(reason: "an assignment row has no id") }
        return Assignment(
            id: id, createdAt: createdAt, updatedAt: updatedAt, origin: origin, source: source, title: title,
            details: details, dueDay: dueDay, dueAt: dueAt, link: link)
    }
}
