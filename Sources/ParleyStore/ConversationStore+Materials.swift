import Foundation
import GRDB

extension ConversationStore {
    /// Adds a study material for `owner`.
    @discardableResult
    public func addMaterial(_ material: NewMaterial, owner: Owner = .local) throws(StoreError) -> Material {
        try write { db in
            var record = MaterialRecord(material, createdAt: try db.transactionDate, owner: owner)
            try record.insert(db)
            return try record.stored()
        }
    }

    /// `owner`'s materials, newest first.
    public func materials(owner: Owner = .local) throws(StoreError) -> [Material] {
        try read { db in
            try MaterialRecord
                .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                .order(Column(MaterialRecord.CodingKeys.id).desc)
                .fetchAll(db)
                .map { try $0.stored() }
        }
    }

    /// `owner`'s material `id`, or `nil` when `owner` has none with that id.
    public func material(_ id: Int64, owner: Owner = .local) throws(StoreError) -> Material? {
        try read { db in
            try MaterialRecord
                .filter(key: id)
                .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                .fetchOne(db)?
                .stored()
        }
    }

    /// Removes `owner`'s material `id`.
    ///
    /// - Throws: ``StoreError/materialNotFound(_:)`` when `owner` has no material with the id.
    public func deleteMaterial(_ id: Int64, owner: Owner = .local) throws(StoreError) {
        try write { db in
            let deleted =
                try MaterialRecord
                .filter(key: id)
                .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                .deleteAll(db)
            guard deleted > 0 else { throw StoreError.materialNotFound(id) }
        }
    }
}
