/// A language model that can evaluate the start of a reply's prompt before the reply is asked
/// for: the conversation so far and the words the user has said up to now, while they are
/// still speaking. The reply's request then shares that start, and only the rest of its prompt
/// (the last words and the template's close) is evaluated before its first token.
///
/// Worth it for an on-device model, whose prompt evaluation is a large part of the time to the
/// first token on a small CPU and which keeps what it evaluated; a remote model has nothing to
/// fill ahead.
public protocol PromptPrefiller: Sendable {
    /// Evaluates the prompt a reply to `messages`, with `tools` on offer, begins with, through
    /// the words of the last message (the user's, still open: the template's close of the
    /// message is not part of it). Cancelling stops it between small batches; what was
    /// evaluated stays in memory.
    func prefill(_ messages: [ChatMessage], tools: [ToolDefinition]) async throws
}

extension PromptPrefiller {
    /// Evaluates the prompt a reply to `messages` without tools begins with.
    public func prefill(_ messages: [ChatMessage]) async throws {
        try await prefill(messages, tools: [])
    }
}
