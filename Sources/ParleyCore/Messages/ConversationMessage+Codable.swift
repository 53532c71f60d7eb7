/// Messages encode with snake_case keys so the JSON reads the same in every language; every
/// key is written (absent values as `null`), and missing optional keys decode as empty
/// values. ``ConversationMessage/audio`` is not encoded.
extension ConversationMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case role, text, images, provider, usage, interrupted
        case rawTranscript = "raw_transcript"
        case editedText = "edited_text"
        case typedText = "typed_text"
        case imageReferences = "image_references"
        case timingsMs = "timings_ms"
        case fullReply = "full_reply"
        case structuredResult = "structured_result"
    }

    /// Decodes a message; only `role` and `text` are required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            role: try container.decode(ChatMessage.Role.self, forKey: .role),
            text: try container.decode(String.self, forKey: .text),
            rawTranscript: try container.decodeIfPresent(String.self, forKey: .rawTranscript),
            editedText: try container.decodeIfPresent(String.self, forKey: .editedText),
            typedText: try container.decodeIfPresent(String.self, forKey: .typedText),
            images: try container.decodeIfPresent([ImageAttachment].self, forKey: .images) ?? [],
            imageReferences: try container.decodeIfPresent([String].self, forKey: .imageReferences) ?? [],
            provider: try container.decodeIfPresent(String.self, forKey: .provider),
            timingsMs: try container.decodeIfPresent([String: Double].self, forKey: .timingsMs) ?? [:],
            usage: try container.decodeIfPresent(Usage.self, forKey: .usage),
            interrupted: try container.decodeIfPresent(Bool.self, forKey: .interrupted) ?? false,
            fullReply: try container.decodeIfPresent(String.self, forKey: .fullReply),
            structuredResult: try container.decodeIfPresent(JSONValue.self, forKey: .structuredResult))
    }

    /// Encodes every field but the audio; absent values are written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(text, forKey: .text)
        try container.encode(rawTranscript, forKey: .rawTranscript)
        try container.encode(editedText, forKey: .editedText)
        try container.encode(typedText, forKey: .typedText)
        try container.encode(images, forKey: .images)
        try container.encode(imageReferences, forKey: .imageReferences)
        try container.encode(provider, forKey: .provider)
        try container.encode(timingsMs, forKey: .timingsMs)
        try container.encode(usage, forKey: .usage)
        try container.encode(interrupted, forKey: .interrupted)
        try container.encode(fullReply, forKey: .fullReply)
        try container.encode(structuredResult, forKey: .structuredResult)
    }
}
