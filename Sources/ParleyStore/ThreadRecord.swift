import Foundation
import GRDB

/// A row of the `thread` table.
struct ThreadRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "thread"

    var id: Int64?
    var title: String?
    var createdAt: Date
    var updatedAt: Date
    var backend: String
    var modelPreset: String?
    var systemPrompt: String
    var maxTokens: Int
    /// ``Owner/id``: `nil` for the local user.
    var owner: String?

    enum CodingKeys: String, CodingKey {
        case id, title, backend, owner
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case modelPreset = "model_preset"
        case systemPrompt = "system_prompt"
        case maxTokens = "max_tokens"
    }

    init(title: String?, settings: ThreadSettings, date: Date, owner: Owner) {
        self.title = title
        createdAt = date
        updatedAt = date
        backend = settings.backend
        modelPreset = settings.modelPreset
        systemPrompt = settings.systemPrompt
        maxTokens = settings.maxTokens
        self.owner = owner.id
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var settings: ThreadSettings {
        get { ThreadSettings(backend: backend, modelPreset: modelPreset, systemPrompt: systemPrompt, maxTokens: maxTokens) }
        set {
            backend = newValue.backend
            modelPreset = newValue.modelPreset
            systemPrompt = newValue.systemPrompt
            maxTokens = newValue.maxTokens
        }
    }

    /// The row of thread `id` if `owner` owns it: another owner's thread is not found.
    static func fetchOne(_ db: Database, id: Int64, owner: Owner) throws -> ThreadRecord? {
        try ThreadRecord.filter(key: id).filter(Column(CodingKeys.owner) == owner.id).fetchOne(db)
    }

    /// Whether thread `id` exists and `owner` owns it.
    static func exists(_ db: Database, id: Int64, owner: Owner) throws -> Bool {
        try ThreadRecord.filter(key: id).filter(Column(CodingKeys.owner) == owner.id).isEmpty(db) == false
    }

    /// The public value; a row always has an id once saved.
    func stored() throws -> StoredThread {
        guard let id else { throw StoreError.database(reason: "a thread row has no id") }
        return StoredThread(id: id, title: title, createdAt: createdAt, updatedAt: updatedAt, settings: settings)
    }
}
