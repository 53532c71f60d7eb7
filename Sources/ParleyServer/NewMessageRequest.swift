import Foundation
import ParleyCore

/// The body of `POST /v1/threads/{id}/messages`: a message in the fields messages are read
/// back with. `role` and `text` are required; the rest describe how the turn went:
/// `raw_transcript`, `edited_text`, `typed_text`, `images` (data URLs or `{"data", "mime_type"}`),
/// `image_references`, `provider`, `timings_ms`, `usage`, `interrupted`, `full_reply` and
/// `structured_result` (any JSON, e.g. structured candidates). A tool exchange is kept too: an
/// assistant message's `tool_calls` (`[{"id", "name", "arguments"}]`, the arguments as JSON
/// text), and a `tool` message's `tool_call_id`, `tool_name` and `is_tool_error`.
struct NewMessageRequest: Decodable, Sendable {
    var role: ChatMessage.Role
    var text: String
    var rawTranscript: String?
    var editedText: String?
    var typedText: String?
    var images: [ImageInput]
    var imageReferences: [String]
    var provider: String?
    var timingsMs: [String: Double]
    var usage: Usage?
    var interrupted: Bool
    var fullReply: String?
    var structuredResult: JSONValue?
    var toolCalls: [ToolCall]
    var toolCallID: String?
    var toolName: String?
    var isToolError: Bool

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

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let roleName = try container.decode(String.self, forKey: .role)
        guard let role = ChatMessage.Role(rawValue: roleName) else {
            throw OpenAIError.invalidRequest("Invalid role '\(roleName)': use system, user, assistant or tool.", param: "role")
        }
        self.role = role
        text = try container.decode(String.self, forKey: .text)
        rawTranscript = try container.decodeIfPresent(String.self, forKey: .rawTranscript)
        editedText = try container.decodeIfPresent(String.self, forKey: .editedText)
        typedText = try container.decodeIfPresent(String.self, forKey: .typedText)
        images = try container.decodeIfPresent([ImageInput].self, forKey: .images) ?? []
        imageReferences = try container.decodeIfPresent([String].self, forKey: .imageReferences) ?? []
        provider = try container.decodeIfPresent(String.self, forKey: .provider)
        timingsMs = try container.decodeIfPresent([String: Double].self, forKey: .timingsMs) ?? [:]
        usage = try container.decodeIfPresent(Usage.self, forKey: .usage)
        interrupted = try container.decodeIfPresent(Bool.self, forKey: .interrupted) ?? false
        fullReply = try container.decodeIfPresent(String.self, forKey: .fullReply)
        structuredResult = try container.decodeIfPresent(JSONValue.self, forKey: .structuredResult)
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
        toolName = try container.decodeIfPresent(String.self, forKey: .toolName)
        isToolError = try container.decodeIfPresent(Bool.self, forKey: .isToolError) ?? false
    }

    /// The message to append.
    func message() throws(OpenAIError) -> ConversationMessage {
        var attachments: [ImageAttachment] = []
        for (index, image) in images.enumerated() {
            attachments.append(try image.attachment(param: "images[\(index)]"))
        }
        return ConversationMessage(
            role: role, text: text, rawTranscript: rawTranscript, editedText: editedText, typedText: typedText,
            images: attachments, imageReferences: imageReferences, provider: provider, timingsMs: timingsMs, usage: usage,
            interrupted: interrupted, fullReply: fullReply, structuredResult: structuredResult, toolCalls: toolCalls,
            toolCallID: toolCallID, toolName: toolName, isToolError: isToolError)
    }
}
