import Foundation
import GRDB

/// The passages' embedding vectors of study materials (see ``MaterialVectors``), kept in the
/// `material_vector` table per embedding model. Deleting a material deletes its vectors, and
/// changing its title or text (a synced material saved again) drops them, to be made anew.
extension ConversationStore {
    /// The vectors `model` made of `owner`'s materials, newest material first; materials without
    /// any are left out.
    public func materialVectors(model: String, owner: Owner = .local) throws(StoreError) -> [MaterialVectors] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT material.id, material.title, material_vector.text, material_vector.vector
                    FROM material_vector JOIN material ON material.id = material_vector.material
                    WHERE material_vector.model = ? AND material.owner IS ?
                    ORDER BY material.id DESC, material_vector.passage
                    """, arguments: [model, owner.id])
            var found: [MaterialVectors] = []
            for row in rows {
                let id: Int64 = try row.decode(forColumn: "id")
                let bytes: Data = try row.decode(forColumn: "vector")
                guard let vector = MaterialVectors.Passage.vector(from: bytes) else { continue }
                let passage = MaterialVectors.Passage(text: try row.decode(forColumn: "text"), vector: vector)
                if found.last?.material == id {
                    found[found.count - 1].passages.append(passage)
                } else {
                    found.append(MaterialVectors(material: id, title: try row.decode(forColumn: "title"), passages: [passage]))
                }
            }
            return found
        }
    }

    /// Keeps `vectors` as `model`'s vectors of `owner`'s material, replacing any it had.
    ///
    /// - Throws: ``StoreError/materialNotFound(_:)`` when `owner` has no material with the id.
    public func saveMaterialVectors(_ vectors: MaterialVectors, model: String, owner: Owner = .local) throws(StoreError) {
        try write { db in
            let owned =
                try MaterialRecord
                .filter(key: vectors.material)
                .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                .fetchCount(db)
            guard owned > 0 else { throw StoreError.materialNotFound(vectors.material) }
            try db.execute(sql: "DELETE FROM material_vector WHERE material = ? AND model = ?", arguments: [vectors.material, model])
            for (index, passage) in vectors.passages.enumerated() {
                try db.execute(
                    sql: "INSERT INTO material_vector (material, model, passage, text, vector) VALUES (?, ?, ?, ?, ?)",
                    arguments: [vectors.material, model, index, passage.text, Data(passage.vectorBytes)])
            }
        }
    }
}
