import Foundation
import ParleyCore

/// Messages encode with snake_case keys (token usage included) so exports read the same in
/// every language; missing optional keys decode as empty values.
extension StoredMessage: Codable {
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

    /// Decodes a message, e.g. from an export.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        threadID = try container.decode(Int64.self, forKey: .threadID)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        content = NewMessage(
            role: try container.decode(MessageRole.self, forKey: .role),
            text: try container.decode(String.self, forKey: .text),
            rawTranscript: try container.decodeIfPresent(String.self, forKey: .rawTranscript),
            editedText: try container.decodeIfPresent(String.self, forKey: .editedText),
            typedText: try container.decodeIfPresent(String.self, forKey: .typedText),
            imageReferences: try container.decodeIfPresent([String].self, forKey: .imageReferences) ?? [],
            provider: try container.decodeIfPresent(String.self, forKey: .provider),
            timingsMs: try container.decodeIfPresent([String: Double].self, forKey: .timingsMs) ?? [:],
            usage: try container.decodeIfPresent(UsageJSON.self, forKey: .usage)?.usage,
            interrupted: try container.decodeIfPresent(Bool.self, forKey: .interrupted) ?? false,
            fullReply: try container.decodeIfPresent(String.self, forKey: .fullReply))
        audioPath = try container.decodeIfPresent(String.self, forKey: .audioPath)
    }

    /// Encodes every field; absent optional values are written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(content.role, forKey: .role)
        try container.encode(content.rawTranscript, forKey: .rawTranscript)
        try container.encode(content.editedText, forKey: .editedText)
        try container.encode(content.typedText, forKey: .typedText)
        try container.encode(content.text, forKey: .text)
        try container.encode(content.imageReferences, forKey: .imageReferences)
        try container.encode(content.provider, forKey: .provider)
        try container.encode(content.timingsMs, forKey: .timingsMs)
        try container.encode(content.usage.map(UsageJSON.init), forKey: .usage)
        try container.encode(content.interrupted, forKey: .interrupted)
        try container.encode(content.fullReply, forKey: .fullReply)
        try container.encode(audioPath, forKey: .audioPath)
    }
}
