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

    enum CodingKeys: String, CodingKey {
        case id, title, backend
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case modelPreset = "model_preset"
        case systemPrompt = "system_prompt"
        case maxTokens = "max_tokens"
    }

    init(title: String?, settings: ThreadSettings, date: Date) {
        self.title = title
        createdAt = date
        updatedAt = date
        backend = settings.backend
        modelPreset = settings.modelPreset
        systemPrompt = settings.systemPrompt
        maxTokens = settings.maxTokens
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var settings: ThreadSettings {
        ThreadSettings(backend: backend, modelPreset: modelPreset, systemPrompt: systemPrompt, maxTokens: maxTokens)
    }

    /// The public value; a row always has an id once saved.
    func stored() throws -> StoredThread {
        guard let id else { throw StoreError.database(reason: "a thread row has no id") }
        return StoredThread(id: id, title: title, createdAt: createdAt, updatedAt: updatedAt, settings: settings)
    }
}
