import Foundation
import ParleyStore
import PostgresNIO

/// What syncs with other services keep: materials from a remote origin, assignments and small
/// per-owner values. Saves are `INSERT … ON CONFLICT … DO UPDATE` on the tables' unique
/// (owner, origin) and (owner, key) constraints, so each is atomic.
extension PostgresConversationStore {
    // MARK: Synced materials

    /// Adds the material from `material.origin`, or replaces the one `owner` already has from
    /// that origin (keeping its id and creation date), in one statement. A material without an
    /// origin is simply added.
    @discardableResult
    public func saveMaterial(_ material: NewMaterial, owner: Owner) async throws(StoreError) -> Material {
        guard let origin = material.origin else { return try await addMaterial(material, owner: owner) }
        let date = now()
        let pages = Int32(clamping: material.pageCount)
        let rows = try await rows(
            """
            INSERT INTO material (owner, created_at, title, kind, source, text, page_count, read_by, origin)
            VALUES (\(owner.column), \(date), \(material.title), \(material.kind), \(material.source), \(material.text), \(pages), \(material.readBy), \(origin))
            ON CONFLICT (owner, origin) WHERE origin IS NOT NULL DO UPDATE SET
                title = EXCLUDED.title, kind = EXCLUDED.kind, source = EXCLUDED.source, text = EXCLUDED.text,
                page_count = EXCLUDED.page_count, read_by = EXCLUDED.read_by
            RETURNING \(unescaped: PostgresRows.materialColumns)
            """)
        guard let row = rows.first else { throw .database(reason: "the material could not be read back") }
        return try Self.decoding { try PostgresRows.material(row) }
    }

    /// `owner`'s material from `origin`, or `nil`.
    public func material(origin: String, owner: Owner) async throws(StoreError) -> Material? {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.materialColumns) FROM material WHERE owner = \(owner.column) AND origin = \(origin)
            """)
        return try Self.decoding { try rows.first.map(PostgresRows.material) }
    }

    /// Removes `owner`'s material from `origin`; returns whether there was one.
    @discardableResult
    public func deleteMaterial(origin: String, owner: Owner) async throws(StoreError) -> Bool {
        try await !rows("DELETE FROM material WHERE owner = \(owner.column) AND origin = \(origin) RETURNING id").isEmpty
    }

    // MARK: Assignments

    /// Adds the assignment from `assignment.origin`, or replaces the one `owner` has from that
    /// origin (keeping its id and ``Assignment/createdAt``; ``Assignment/updatedAt`` becomes
    /// now), in one statement.
    @discardableResult
    public func saveAssignment(_ assignment: NewAssignment, owner: Owner) async throws(StoreError) -> Assignment {
        let date = now()
        let rows = try await rows(
            """
            INSERT INTO assignment (owner, created_at, updated_at, origin, source, title, details, due_day, due_at, link)
            VALUES (\(owner.column), \(date), \(date), \(assignment.origin), \(assignment.source), \(assignment.title),
                    \(assignment.details), \(assignment.dueDay), \(assignment.dueAt), \(assignment.link))
            ON CONFLICT (owner, origin) DO UPDATE SET
                updated_at = EXCLUDED.updated_at, source = EXCLUDED.source, title = EXCLUDED.title, details = EXCLUDED.details,
                due_day = EXCLUDED.due_day, due_at = EXCLUDED.due_at, link = EXCLUDED.link
            RETURNING \(unescaped: PostgresRows.assignmentColumns)
            """)
        guard let row = rows.first else { throw .database(reason: "the assignment could not be read back") }
        return try Self.decoding { try PostgresRows.assignment(row) }
    }

    /// `owner`'s assignments, soonest due first: by day, then by time (a whole-day one after
    /// the timed ones of its day), then by id.
    public func assignments(owner: Owner) async throws(StoreError) -> [Assignment] {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.assignmentColumns) FROM assignment WHERE owner = \(owner.column)
            ORDER BY due_day, due_at IS NULL, due_at, id
            """)
        return try Self.decoding { try rows.map(PostgresRows.assignment) }
    }

    /// Removes `owner`'s assignment from `origin`; returns whether there was one.
    @discardableResult
    public func deleteAssignment(origin: String, owner: Owner) async throws(StoreError) -> Bool {
        try await !rows("DELETE FROM assignment WHERE owner = \(owner.column) AND origin = \(origin) RETURNING id").isEmpty
    }

    // MARK: Sync state

    /// The value `owner` saved under `key`, or `nil`. Values may be secrets: they are sent as
    /// bind parameters, which neither the server's errors nor the store's hold.
    public func syncState(_ key: String, owner: Owner) async throws(StoreError) -> String? {
        let rows = try await rows("SELECT value FROM sync_state WHERE owner = \(owner.column) AND key = \(key)")
        return try Self.decoding { try rows.first.map { try $0.decode(String.self) } }
    }

    /// Saves `value` under `key` for `owner`, replacing what was there; `nil` removes it.
    public func setSyncState(_ key: String, to value: String?, owner: Owner) async throws(StoreError) {
        guard let value else {
            _ = try await rows("DELETE FROM sync_state WHERE owner = \(owner.column) AND key = \(key)")
            return
        }
        let date = now()
        _ = try await rows(
            """
            INSERT INTO sync_state (owner, key, value, updated_at) VALUES (\(owner.column), \(key), \(value), \(date))
            ON CONFLICT (owner, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
            """)
    }
}
