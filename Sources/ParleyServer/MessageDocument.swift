import Foundation
import ParleyData

/// A saved message as the threads API sends it: the message's own encoding (``StoredMessage``
/// with its content's snake_case fields, images inline as `{"data": base64, "mime_type"}`) but,
/// in place of the server's file path of a kept recording, `audio_url`: the path to fetch it
/// from (`/v1/threads/{id}/messages/{mid}/audio`), or `null`. A message of a tool exchange
/// also has `tool_calls` (an assistant's calls: `[{"id", "name", "arguments"}]`, the arguments
/// as JSON text) or `tool_call_id`, `tool_name` and `is_tool_error` (a tool's result); the keys
/// are left out of other messages.
struct MessageDocument: Encodable, Sendable {
    var message: StoredMessage

    enum CodingKeys: String, CodingKey {
        case id
        case threadID = "thread_id"
        case createdAt = "created_at"
        case audioURL = "audio_url"
    }

    /// Where the message's kept recording is served, when it has one.
    var audioURL: String? {
        message.audioPath == nil ? nil : "/v1/threads/\(message.threadID)/messages/\(message.id)/audio"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message.id, forKey: .id)
        try container.encode(message.threadID, forKey: .threadID)
        try container.encode(message.createdAt, forKey: .createdAt)
        try container.encode(audioURL, forKey: .audioURL)
        try message.content.encode(to: encoder)
    }
}
