import Foundation
import ParleyStore
import PostgresNIO

/// The passages' embedding vectors of study materials, in the `material_vector` table (see
/// ``PostgresSchema``), as the SQLite store keeps them.
extension PostgresConversationStore {
    /// The vectors `model` made of `owner`'s materials, newest material first.
    public func materialVectors(model: String, owner: Owner) async throws(StoreError) -> [MaterialVectors] {
        let rows = try await rows(
            """
            SELECT material.id, material.title, material_vector.text, material_vector.vector
            FROM material_vector JOIN material ON material.id = material_vector.material
            WHERE material_vector.model = \(model) AND material.owner = \(owner.column)
            ORDER BY material.id DESC, material_vector.passage
            """)
        return try Self.decoding {
            var found: [MaterialVectors] = []
            for row in rows {
                let row = row.makeRandomAccess()
                let id = try row["id"].decode(Int64.self)
                let bytes = try row["vector"].decode(ByteBuffer.self)
                guard let vector = MaterialVectors.Passage.vector(from: bytes.readableBytesView) else { continue }
                let passage = MaterialVectors.Passage(text: try row["text"].decode(String.self), vector: vector)
                if found.last?.material == id {
                    found[found.count - 1].passages.append(passage)
                } else {
                    found.append(MaterialVectors(material: id, title: try row["title"].decode(String.self), passages: [passage]))
                }
            }
            return found
        }
    }

    /// Keeps `vectors` as `model`'s vectors of `owner`'s material, replacing any it had, in one
    /// transaction.
    public func saveMaterialVectors(_ vectors: MaterialVectors, model: String, owner: Owner) async throws(StoreError) {
        let id = vectors.material
        let passages = vectors.passages.map { ($0.text, $0.vectorBytes) }
        let ownerColumn = owner.column
        let logger = logger
        let saved = try await transaction { connection -> Bool in
            // The material row is locked until the transaction ends: a delete waits for it.
            let owned = try await connection.query(
                "SELECT id FROM material WHERE id = \(id) AND owner = \(ownerColumn) FOR UPDATE", logger: logger
            ).collect()
            guard !owned.isEmpty else { return false }
            try await connection.query("DELETE FROM material_vector WHERE material = \(id) AND model = \(model)", logger: logger)
            for (index, (text, bytes)) in passages.enumerated() {
                let position = Int32(clamping: index)
                try await connection.query(
                    """
                    INSERT INTO material_vector (material, model, passage, text, vector)
                    VALUES (\(id), \(model), \(position), \(text), \(ByteBuffer(bytes: bytes)))
                    """, logger: logger)
            }
            return true
        }
        guard saved else { throw .materialNotFound(id) }
    }
}
