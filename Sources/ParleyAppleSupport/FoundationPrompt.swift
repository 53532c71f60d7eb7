import ParleyCore

/// A conversation as Apple's Foundation Models framework takes it in one call: a session's
/// instructions and one prompt.
///
/// Parley's providers are stateless (each request carries the whole conversation), while a
/// `LanguageModelSession` keeps its own transcript and runs tools itself. So each request starts
/// a new session: the system messages become its instructions, the turns before the last user
/// message are written into them as a transcript, and the last user message is the prompt. Tool
/// calls the model already made in this turn, and their results (which Parley's caller ran, as
/// with every other provider), follow the prompt, so that the model answers from them instead
/// of calling the same tools again.
public struct FoundationPrompt: Sendable, Equatable {
    /// The session's instructions.
    public var instructions: String
    /// What the model is asked now.
    public var prompt: String

    /// The prompt when the conversation has no user message yet (the assistant speaks first).
    public static let openingPrompt = "Begin the conversation."

    /// Creates the instructions and prompt for `messages`.
    public init(_ messages: [ChatMessage]) {
        let system = messages.filter { $0.role == .system }.map(\.text).filter { !$0.isEmpty }
        let lastUser = messages.lastIndex { $0.role == .user }
        let earlier = lastUser.map { messages[..<$0] } ?? messages[...]
        let transcript = earlier.filter { $0.role != .system }.flatMap(Self.lines)
        var instructions = system.joined(separator: "\n\n")
        if !transcript.isEmpty {
            if !instructions.isEmpty { instructions += "\n\n" }
            instructions += "The conversation so far:\n" + transcript.joined(separator: "\n")
        }
        self.instructions = instructions
        guard let lastUser else {
            prompt = Self.openingPrompt
            return
        }
        var prompt = messages[lastUser].text
        let thisTurn = messages[(lastUser + 1)...].filter { $0.role != .system }.flatMap(Self.lines)
        if !thisTurn.isEmpty {
            prompt += "\n\nFor this message you already called tools; here is what they returned:\n"
                + thisTurn.joined(separator: "\n")
                + "\nAnswer from these results; do not call the same tools again."
        }
        self.prompt = prompt
    }

    /// A message as transcript lines: what was said, each tool call, each tool result.
    static func lines(_ message: ChatMessage) -> [String] {
        switch message.role {
        case .system:
            return []
        case .user:
            return ["User: \(message.text)"]
        case .assistant:
            let said = message.text.isEmpty ? [] : ["Assistant: \(message.text)"]
            return said + message.toolCalls.map { "Assistant called the tool \($0.name) with \($0.arguments)" }
        case .tool:
            let name = message.toolName ?? message.toolCallID ?? "a tool"
            return [message.isToolError ? "The tool \(name) failed: \(message.text)" : "The tool \(name) returned: \(message.text)"]
        }
    }
}

/// The tool calls a Foundation Models session asked for in one request, kept in order.
///
/// The framework runs a tool by calling it; Parley's providers instead hand each call to their
/// caller. So a tool's body records the call here and throws ``ToolCallsRequested``, which ends
/// the session's response; the provider then reports the recorded calls and finishes with
/// ``FinishReason/toolCalls``.
public actor ToolCallCollector {
    /// The calls so far.
    public private(set) var calls: [ToolCall] = []

    /// An empty collector.
    public init() {}

    /// Records a call of `name` with `arguments` (a JSON object's text) and returns it with a
    /// new id.
    @discardableResult
    public func record(name: String, arguments: String) -> ToolCall {
        let call = ToolCall(id: "call_" + String(UInt64.random(in: 1...UInt64.max), radix: 36), name: name,
                            arguments: arguments.isEmpty ? "{}" : arguments)
        calls.append(call)
        return call
    }
}

/// Thrown by a tool's body to stop the session once a call is recorded (see ``ToolCallCollector``).
public struct ToolCallsRequested: Error, Sendable {
    /// The error.
    public init() {}
}
