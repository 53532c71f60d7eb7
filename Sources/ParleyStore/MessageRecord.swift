import Foundation
import GRDB

/// A row of the `message` table. Image references, timings and usage are JSON text columns.
struct MessageRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "message"

    var id: Int64?
    var threadID: Int64
    var createdAt: Date
    var role: String
    var rawTranscript: String?
    var editedText: String?
    var typedText: String?
    var text: String
    var imageReferences: [String]
    var provider: String?
    var timingsMs: [String: Double]
    var usage: UsageJSON?
    var interrupted: Bool
    var fullReply: String?
    var audioPath: String?

    enum CodingKeys: String, CodingKey {
        case id, role, text, provider, usage, interrupted
        case threadID = "thread_id"
        case createdAt = "created_at"
        case rawTranscript = "raw_transcript"
        case editedText = "edited_text"
        case typedText = "typed_text"
        case imageReferences = "image_references"
        case timingsMs = "timings_ms"
        case fullReply = "full_reply"
        case audioPath = "audio_path"
    }

    init(_ message: NewMessage, threadID: Int64, createdAt: Date) {
        self.threadID = threadID
        self.createdAt = createdAt
        role = message.role.rawValue
        rawTranscript = message.rawTranscript
        editedText = message.editedText
        typedText = message.typedText
        text = message.text
        imageReferences = message.imageReferences
        provider = message.provider
        timingsMs = message.timingsMs
        usage = message.usage.map(UsageJSON.init)
        interrupted = message.interrupted
        fullReply = message.fullReply
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The public value; fails for a row whose role this version does not know.
    func stored() throws -> StoredMessage {
        guard let id else { throw StoreError.database(reason: "a message row has no id") }
        guard let role = MessageRole(rawValue: role) else {
            throw StoreError.database(reason: "message \(id) has the unknown role \"\(self.role)\"; update Parley")
        }
        let content = NewMessage(
            role: role, text: text, rawTranscript: rawTranscript, editedText: editedText, typedText: typedText,
            imageReferences: imageReferences, provider: provider, timingsMs: timingsMs, usage: usage?.usage,
            interrupted: interrupted, fullReply: fullReply)
        return StoredMessage(id: id, threadID: threadID, createdAt: createdAt, message: content, audioPath: audioPath)
    }
}
