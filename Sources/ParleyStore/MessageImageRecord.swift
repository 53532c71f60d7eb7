import Foundation
import GRDB
import ParleyCore

/// A row of the `message_image` table: one image attached to a message, in its place among
/// the message's images. Rows go with their message (and so with their thread).
struct MessageImageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "message_image"

    var messageID: Int64
    var position: Int
    var mimeType: String
    var data: Data

    enum CodingKeys: String, CodingKey {
        case position, data
        case messageID = "message_id"
        case mimeType = "mime_type"
    }

    /// The rows of `images`, attached to message `messageID`.
    static func rows(_ images: [ImageAttachment], messageID: Int64) -> [MessageImageRecord] {
        images.enumerated().map { MessageImageRecord(messageID: messageID, position: $0.offset, mimeType: $0.element.mimeType, data: $0.element.data) }
    }

    /// The images of thread `thread`'s messages, by message id, each message's in order.
    static func images(_ db: Database, thread: Int64) throws -> [Int64: [ImageAttachment]] {
        grouped(
            try MessageImageRecord.fetchAll(
                db,
                sql: """
                    SELECT message_image.* FROM message_image JOIN message ON message.id = message_image.message_id
                    WHERE message.thread_id = ? ORDER BY message_image.message_id, message_image.position
                    """, arguments: [thread]))
    }

    /// The images of every message in `owner`'s threads, by message id, each message's in order.
    static func images(_ db: Database, owner: Owner) throws -> [Int64: [ImageAttachment]] {
        grouped(
            try MessageImageRecord.fetchAll(
                db,
                sql: """
                    SELECT message_image.* FROM message_image
                    JOIN message ON message.id = message_image.message_id JOIN thread ON thread.id = message.thread_id
                    WHERE thread.owner IS ? ORDER BY message_image.message_id, message_image.position
                    """, arguments: [owner.id]))
    }

    /// The images of message `message`, in order.
    static func images(_ db: Database, message: Int64) throws -> [ImageAttachment] {
        let rows =
            try MessageImageRecord
            .filter(Column(CodingKeys.messageID) == message)
            .order(Column(CodingKeys.position))
            .fetchAll(db)
        return grouped(rows)[message] ?? []
    }

    private static func grouped(_ rows: [MessageImageRecord]) -> [Int64: [ImageAttachment]] {
        Dictionary(grouping: rows, by: \.messageID).mapValues { $0.map { ImageAttachment(data: $0.data, mimeType: $0.mimeType) } }
    }
}
