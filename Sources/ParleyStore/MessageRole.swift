/// Who wrote a message.
public enum MessageRole: String, Sendable, Equatable, Codable, CaseIterable {
    /// Instructions that open the conversation.
    case system
    /// The person: a spoken or typed turn.
    case user
    /// The model's reply.
    case assistant
}
