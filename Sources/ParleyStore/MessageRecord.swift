import Foundation
import GRDB
import ParleyCore

/// A row of the `message` table: a ``ConversationMessage`` and where it was saved. Image
/// references, timings, usage, the structured result and the tool exchange
/// (``MessageToolColumn``) are JSON text columns; attached
/// images are rows of `message_image` (``MessageImageRecord``), and the audio is a file.
struct MessageRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "message"

    /// The columns, named once.
    enum Columns {
        static let id = Column("id")
        static let threadID = Column("thread_id")
        static let createdAt = Column("created_at")
        static let role = Column("role")
        static let rawTranscript = Column("raw_transcript")
        static let editedText = Column("edited_text")
        static let typedText = Column("typed_text")
        static let text = Column("text")
        static let imageReferences = Column("image_references")
        static let provider = Column("provider")
        static let timingsMs = Column("timings_ms")
        static let usage = Column("usage")
        static let interrupted = Column("interrupted")
        static let fullReply = Column("full_reply")
        static let structuredResult = Column("structured_result")
        static let tool = Column("tool")
        static let audioPath = Column("audio_path")
    }

    var id: Int64?
    var threadID: Int64
    var createdAt: Date
    /// The content; its images and audio are not in this row.
    var message: ConversationMessage
    var audioPath: String?

    init(_ message: ConversationMessage, threadID: Int64, createdAt: Date) {
        self.threadID = threadID
        self.createdAt = createdAt
        self.message = message
        self.message.images = []
        self.message.audio = nil
    }

    /// Reads a row; fails for a role this version does not know.
    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id)
        threadID = try row.decode(forColumn: Columns.threadID)
        createdAt = try row.decode(forColumn: Columns.createdAt)
        audioPath = try row.decode(forColumn: Columns.audioPath)
        let roleName: String = try row.decode(forColumn: Columns.role)
        guard let role = MessageRole(rawValue: roleName) else {
            throw StoreError.database(reason: "message \(id ?? -1) has the unknown role \"\(roleName)\"; update Parley")
        }
        message = ConversationMessage(
            role: role, text: try row.decode(forColumn: Columns.text),
            rawTranscript: try row.decode(forColumn: Columns.rawTranscript),
            editedText: try row.decode(forColumn: Columns.editedText),
            typedText: try row.decode(forColumn: Columns.typedText),
            imageReferences: try Self.json(row, Columns.imageReferences) ?? [],
            provider: try row.decode(forColumn: Columns.provider),
            timingsMs: try Self.json(row, Columns.timingsMs) ?? [:],
            usage: try Self.json(row, Columns.usage),
            interrupted: try row.decode(forColumn: Columns.interrupted),
            fullReply: try row.decode(forColumn: Columns.fullReply),
            structuredResult: try Self.json(row, Columns.structuredResult))
        try MessageToolColumn.read(try row.decode(forColumn: Columns.tool), into: &message)
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.threadID] = threadID
        container[Columns.createdAt] = createdAt
        container[Columns.role] = message.role.rawValue
        container[Columns.rawTranscript] = message.rawTranscript
        container[Columns.editedText] = message.editedText
        container[Columns.typedText] = message.typedText
        container[Columns.text] = message.text
        container[Columns.imageReferences] = try Self.jsonText(message.imageReferences)
        container[Columns.provider] = message.provider
        container[Columns.timingsMs] = try Self.jsonText(message.timingsMs)
        container[Columns.usage] = try message.usage.map(Self.jsonText)
        container[Columns.interrupted] = message.interrupted
        container[Columns.fullReply] = message.fullReply
        container[Columns.structuredResult] = try message.structuredResult.map(Self.jsonText)
        container[Columns.tool] = try MessageToolColumn.jsonText(for: message)
        container[Columns.audioPath] = audioPath
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The public value, with the message's images.
    func stored(images: [ImageAttachment] = []) throws -> StoredMessage {
        guard let id else { throw StoreError.database(reason: "a message row has no id") }
        var content = message
        content.images = images
        return StoredMessage(id: id, threadID: threadID, createdAt: createdAt, message: content, audioPath: audioPath)
    }

    private static func json<Value: Decodable>(_ row: Row, _ column: Column) throws -> Value? {
        guard let text: String = try row.decode(forColumn: column) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        } catch {
            throw StoreError.database(reason: "the \(column.name) column holds unreadable JSON (\(error))")
        }
    }

    private static func jsonText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
