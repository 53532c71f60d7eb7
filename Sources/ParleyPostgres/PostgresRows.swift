import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension Owner {
    /// What the `owner` columns hold: the id, or `''` for the local user (see ``PostgresSchema``).
    var column: String { id ?? "" }
}

/// The columns the store selects, and their reading into the public values.
enum PostgresRows {
    /// A thread's columns, as ``thread(_:)`` reads them.
    static let threadColumns =
        "thread.id, thread.title, thread.created_at, thread.updated_at, thread.backend, "
        + "thread.model_preset, thread.system_prompt, thread.max_tokens"

    /// A message's columns, JSON ones as text, as ``message(_:images:)`` reads them.
    static let messageColumns =
        "message.id, message.thread_id, message.created_at, message.role, message.raw_transcript, "
        + "message.edited_text, message.typed_text, message.text, message.image_references::text AS image_references, "
        + "message.provider, message.timings_ms::text AS timings_ms, message.usage::text AS usage, message.interrupted, "
        + "message.full_reply, message.structured_result::text AS structured_result, message.tool::text AS tool, "
        + "message.audio_path"

    /// A stash item's columns, as ``stashItem(_:)`` reads them.
    static let stashColumns = "id, created_at, kind, text, thread_id, message_id"
    static let materialColumns = "id, created_at, title, kind, source, text, page_count, read_by, origin"
    /// An assignment's columns, as ``assignment(_:)`` reads them.
    static let assignmentColumns = "id, created_at, updated_at, origin, source, title, details, due_day, due_at, link"

    static func assignment(_ row: PostgresRow) throws -> Assignment {
        let row = row.makeRandomAccess()
        return Assignment(
            id: try row["id"].decode(Int64.self), createdAt: try row["created_at"].decode(Date.self),
            updatedAt: try row["updated_at"].decode(Date.self), origin: try row["origin"].decode(String.self),
            source: try row["source"].decode(String.self), title: try row["title"].decode(String.self),
            details: try row["details"].decode(String.self), dueDay: try row["due_day"].decode(String.self),
            dueAt: try row["due_at"].decode(Date?.self), link: try row["link"].decode(String?.self))
    }

    static func material(_ row: PostgresRow) throws -> Material {
        let row = row.makeRandomAccess()
        return Material(
            id: try row["id"].decode(Int64.self), createdAt: try row["created_at"].decode(Date.self),
            title: try row["title"].decode(String.self), kind: try row["kind"].decode(String.self),
            source: try row["source"].decode(String.self), text: try row["text"].decode(String.self),
            pageCount: Int(try row["page_count"].decode(Int32.self)), readBy: try row["read_by"].decode(String.self),
            origin: try row["origin"].decode(String?.self))
    }

    static func thread(_ row: PostgresRow) throws -> StoredThread {
        let row = row.makeRandomAccess()
        return StoredThread(
            id: try row["id"].decode(Int64.self), title: try row["title"].decode(String?.self),
            createdAt: try row["created_at"].decode(Date.self), updatedAt: try row["updated_at"].decode(Date.self),
            settings: ThreadSettings(
                backend: try row["backend"].decode(String.self), modelPreset: try row["model_preset"].decode(String?.self),
                systemPrompt: try row["system_prompt"].decode(String.self), maxTokens: try row["max_tokens"].decode(Int.self)))
    }

    static func message(_ row: PostgresRow, images: [ImageAttachment]) throws -> StoredMessage {
        let row = row.makeRandomAccess()
        let id = try row["id"].decode(Int64.self)
        let roleName = try row["role"].decode(String.self)
        guard let role = MessageRole(rawValue: roleName) else {
            throw StoreError.database(reason: "message \(id) has the unknown role \"\(roleName)\"; update Parley")
        }
        var content = ConversationMessage(
            role: role, text: try row["text"].decode(String.self),
            rawTranscript: try row["raw_transcript"].decode(String?.self), editedText: try row["edited_text"].decode(String?.self),
            typedText: try row["typed_text"].decode(String?.self), images: images,
            imageReferences: try json(row, "image_references") ?? [], provider: try row["provider"].decode(String?.self),
            timingsMs: try json(row, "timings_ms") ?? [:], usage: try json(row, "usage"),
            interrupted: try row["interrupted"].decode(Bool.self), fullReply: try row["full_reply"].decode(String?.self),
            structuredResult: try json(row, "structured_result"))
        try MessageToolColumn.read(try row["tool"].decode(String?.self), into: &content)
        return StoredMessage(
            id: id, threadID: try row["thread_id"].decode(Int64.self), createdAt: try row["created_at"].decode(Date.self),
            message: content, audioPath: try row["audio_path"].decode(String?.self))
    }

    static func stashItem(_ row: PostgresRow) throws -> StashItem {
        let row = row.makeRandomAccess()
        return StashItem(
            id: try row["id"].decode(Int64.self), createdAt: try row["created_at"].decode(Date.self),
            kind: try row["kind"].decode(String.self), text: try row["text"].decode(String.self),
            threadID: try row["thread_id"].decode(Int64?.self), messageID: try row["message_id"].decode(Int64?.self))
    }

    /// Images by message id, each message's in order, from rows of `message_id, mime_type,
    /// data` sorted by message and position.
    static func images(_ rows: [PostgresRow]) throws -> [Int64: [ImageAttachment]] {
        var images: [Int64: [ImageAttachment]] = [:]
        for row in rows {
            let (message, mimeType, data) = try row.decode((Int64, String, Data).self)
            images[message, default: []].append(ImageAttachment(data: data, mimeType: mimeType))
        }
        return images
    }

    /// A JSON text column's value; `nil` when the column is `NULL`.
    private static func json<Value: Decodable>(_ row: PostgresRandomAccessRow, _ column: String) throws -> Value? {
        guard let text = try row[column].decode(String?.self) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        } catch {
            throw StoreError.database(reason: "the \(column) column holds unreadable JSON (\(error))")
        }
    }

    /// `value` as JSON text for a `jsonb` column.
    static func jsonText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
