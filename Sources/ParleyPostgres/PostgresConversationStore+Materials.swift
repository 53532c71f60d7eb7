import Foundation
import ParleyStore
import PostgresNIO

extension PostgresConversationStore {
    /// Adds a study material for `owner`.
    @discardableResult
    public func addMaterial(_ material: NewMaterial, owner: Owner) async throws(StoreError) -> Material {
        let date = now()
        let pages = Int32(clamping: material.pageCount)
        let rows = try await rows(
            """
            INSERT INTO material (owner, created_at, title, kind, source, text, page_count, read_by, origin)
            VALUES (\(owner.column), \(date), \(material.title), \(material.kind), \(material.source), \(material.text), \(pages), \(material.readBy), \(material.origin))
            RETURNING \(unescaped: PostgresRows.materialColumns)
            """)
        guard let row = rows.first else { throw .database(reason: "the material could not be read back") }
        return try Self.decoding { try PostgresRows.material(row) }
    }

    /// `owner`'s materials, newest first.
    public func materials(owner: Owner) async throws(StoreError) -> [Material] {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.materialColumns) FROM material WHERE owner = \(owner.column) ORDER BY id DESC
            """)
        return try Self.decoding { try rows.map(PostgresRows.material) }
    }

    /// `owner`'s material `id`, or `nil`.
    public func material(_ id: Int64, owner: Owner) async throws(StoreError) -> Material? {
        let rows = try await rows(
            """
            SELECT \(unescaped: PostgresRows.materialColumns) FROM material WHERE id = \(id) AND owner = \(owner.column)
            """)
        return try Self.decoding { try rows.first.map(PostgresRows.material) }
    }

    /// Removes `owner`'s material `id`.
    public func deleteMaterial(_ id: Int64, owner: Owner) async throws(StoreError) {
        let rows = try await rows("DELETE FROM material WHERE id = \(id) AND owner = \(owner.column) RETURNING id")
        guard !rows.isEmpty else { throw .materialNotFound(id) }
    }
}
