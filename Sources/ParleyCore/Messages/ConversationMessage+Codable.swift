/// Messages encode with snake_case keys so the JSON reads the same in every language; every
/// key is written (absent values as `null`), and missing optional keys decode as empty
/// values. ``ConversationMessage/audio`` is not encoded.
///
/// The tool fields are the exception: `tool_calls` (an array of `{"id","name","arguments"}`,
/// the arguments as JSON text), `tool_call_id`, `tool_name` and `is_tool_error` are written
/// only when the message has them, so a message without tools encodes as it did before tools
/// existed, and data written before then decodes with none.
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
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
        case toolName = "tool_name"
        case isToolError = "is_tool_error"
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
            structuredResult: try container.decodeIfPresent(JSONValue.self, forKey: .structuredResult),
            toolCalls: try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? [],
            toolCallID: try container.decodeIfPresent(String.self, forKey: .toolCallID),
            toolName: try container.decodeIfPresent(String.self, forKey: .toolName),
            isToolError: try container.decodeIfPresent(Bool.self, forKey: .isToolError) ?? false)
    }

    /// Encodes every field but the audio; absent values are written as `null`, except the tool
    /// fields, which are left out when empty.
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
        if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
        try container.encodeIfPresent(toolName, forKey: .toolName)
        if isToolError { try container.encode(isToolError, forKey: .isToolError) }
    }
}
