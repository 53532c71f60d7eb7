import Foundation
import GRDB

/// What syncs with other services keep: materials from a remote origin, assignments and small
/// per-owner values.
///
/// The local user's `owner` is `NULL`, and SQLite's UNIQUE holds NULLs distinct, so these
/// tables are unique on `ifnull(owner, '')` (see ``StoreSchema``) and every query here matches
/// owners by that same expression, which the unique indexes serve. A save looks its row up and
/// updates or inserts it in one write transaction (GRDB begins it `IMMEDIATE`, so another
/// process cannot slip a row in between).
extension ConversationStore {
    // MARK: Synced materials

    /// Adds the material from `material.origin`, or replaces the one `owner` already has from
    /// that origin (keeping its id and creation date). A material without an origin is simply
    /// added.
    @discardableResult
    public func saveMaterial(_ material: NewMaterial, owner: Owner = .local) throws(StoreError) -> Material {
        try write { db in
            var record = MaterialRecord(material, createdAt: try db.transactionDate, owner: owner)
            if let origin = material.origin, let existing = try Self.byOrigin(MaterialRecord.self, origin, owner: owner).fetchOne(db) {
                record.id = existing.id
                record.createdAt = existing.createdAt
                try record.update(db)
            } else {
                try record.insert(db)
            }
            return try record.stored()
        }
    }

    /// `owner`'s material from `origin`, or `nil`.
    public func material(origin: String, owner: Owner = .local) throws(StoreError) -> Material? {
        try read { db in try Self.byOrigin(MaterialRecord.self, origin, owner: owner).fetchOne(db)?.stored() }
    }

    /// Removes `owner`'s material from `origin`; returns whether there was one.
    @discardableResult
    public func deleteMaterial(origin: String, owner: Owner = .local) throws(StoreError) -> Bool {
        try write { db in try Self.byOrigin(MaterialRecord.self, origin, owner: owner).deleteAll(db) > 0 }
    }

    // MARK: Assignments

    /// Adds the assignment from `assignment.origin`, or replaces the one `owner` has from that
    /// origin (keeping its id and ``Assignment/createdAt``; ``Assignment/updatedAt`` becomes
    /// now).
    @discardableResult
    public func saveAssignment(_ assignment: NewAssignment, owner: Owner = .local) throws(StoreError) -> Assignment {
        try write { db in
            var record = AssignmentRecord(assignment, createdAt: try db.transactionDate, owner: owner)
            if let existing = try Self.byOrigin(AssignmentRecord.self, assignment.origin, owner: owner).fetchOne(db) {
                record.id = existing.id
                record.createdAt = existing.createdAt
                try record.update(db)
            } else {
                try record.insert(db)
            }
            return try record.stored()
        }
    }

    /// `owner`'s assignments, soonest due first: by day, then by time (a whole-day one after
    /// the timed ones of its day), then by id.
    public func assignments(owner: Owner = .local) throws(StoreError) -> [Assignment] {
        try read { db in
            try AssignmentRecord
                .filter(sql: "ifnull(owner, '') = ?", arguments: [Self.ownerKey(owner)])
                .order(sql: "due_day, due_at IS NULL, due_at, id")
                .fetchAll(db)
                .map { try $0.stored() }
        }
    }

    /// Removes `owner`'s assignment from `origin`; returns whether there was one.
    @discardableResult
    public func deleteAssignment(origin: String, owner: Owner = .local) throws(StoreError) -> Bool {
        try write { db in try Self.byOrigin(AssignmentRecord.self, origin, owner: owner).deleteAll(db) > 0 }
    }

    // MARK: Sync state

    /// The value `owner` saved under `key`, or `nil`. Values may be secrets: errors never
    /// hold them (GRDB leaves statement arguments out of its errors).
    public func syncState(_ key: String, owner: Owner = .local) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM sync_state WHERE ifnull(owner, '') = ? AND key = ?",
                arguments: [Self.ownerKey(owner), key])
        }
    }

    /// Saves `value` under `key` for `owner`, replacing what was there; `nil` removes it.
    public func setSyncState(_ key: String, to value: String?, owner: Owner = .local) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM sync_state WHERE ifnull(owner, '') = ? AND key = ?", arguments: [Self.ownerKey(owner), key])
            guard let value else { return }
            try db.execute(
                sql: "INSERT INTO sync_state (owner, key, value, updated_at) VALUES (?, ?, ?, ?)",
                arguments: [owner.id, key, value, try db.transactionDate])
        }
    }

    // MARK: Queries

    /// What the unique indexes hold for `owner`: its id, `''` for the local user.
    private static func ownerKey(_ owner: Owner) -> String {
        owner.id ?? ""
    }

    /// `owner`'s rows of `record`'s table from `origin` (at most one).
    private static func byOrigin<Record: TableRecord>(_ record: Record.Type, _ origin: String, owner: Owner) -> QueryInterfaceRequest<Record> {
        Record.filter(sql: "ifnull(owner, '') = ? AND origin = ?", arguments: [ownerKey(owner), origin])
    }
}
