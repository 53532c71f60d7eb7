import ParleyCore

/// A conversation as Apple's Foundation Models framework takes it in one call: a session's
/// instructions, the transcript before the question, and the prompt.
///
/// Parley's providers are stateless (each request carries the whole conversation), while a
/// `LanguageModelSession` keeps its own transcript and runs tools itself. So each request starts
/// a new session from a transcript: the system messages become its instructions (which the
/// model ranks above everything else, so nothing a user or a tool wrote goes there), the turns
/// before the last user message become the transcript's prompts, responses, tool calls and tool
/// outputs (``history``), and the last user message is the prompt. Tool calls the model already
/// made in this turn, and their results (which Parley's caller ran, as with every other
/// provider), follow the prompt, so that the model answers from them instead of calling the same
/// tools again.
public struct FoundationPrompt: Sendable, Equatable {
    /// One entry of the transcript before the prompt.
    public enum Entry: Sendable, Equatable {
        /// A user's message.
        case prompt(String)
        /// What the assistant said.
        case response(String)
        /// The tools the assistant called.
        case toolCalls([ToolCall])
        /// A tool's result for the call `callID` (a failure says so in `text`).
        case toolOutput(callID: String, toolName: String, text: String)
    }

    /// The session's instructions: the system messages only.
    public var instructions: String
    /// The conversation before the last user message.
    public var history: [Entry]
    /// What the model is asked now.
    public var prompt: String

    /// The prompt when the conversation has no user message yet (the assistant speaks first).
    public static let openingPrompt = "Begin the conversation."

    /// Creates the instructions, history and prompt for `messages`.
    public init(_ messages: [ChatMessage]) {
        instructions = messages.filter { $0.role == .system }.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n\n")
        let lastUser = messages.lastIndex { $0.role == .user }
        let earlier = lastUser.map { messages[..<$0] } ?? messages[...]
        history = Self.entries(earlier)
        guard let lastUser else {
            prompt = Self.openingPrompt
            return
        }
        var prompt = messages[lastUser].text
        let thisTurn = messages[(lastUser + 1)...].filter { $0.role != .system }.flatMap(Self.lines)
        if !thisTurn.isEmpty {
            prompt +=
                "\n\nFor this message you already called tools; here is what they returned:\n"
                + thisTurn.joined(separator: "\n")
                + "\nAnswer from these results; do not call the same tools again."
        }
        self.prompt = prompt
    }

    /// The transcript entries of `messages` (system messages are the instructions, not entries).
    static func entries(_ messages: ArraySlice<ChatMessage>) -> [Entry] {
        var names: [String: String] = [:]
        var entries: [Entry] = []
        for message in messages {
            switch message.role {
            case .system:
                continue
            case .user:
                entries.append(.prompt(message.text))
            case .assistant:
                if !message.text.isEmpty { entries.append(.response(message.text)) }
                if !message.toolCalls.isEmpty { entries.append(.toolCalls(message.toolCalls)) }
                for call in message.toolCalls { names[call.id] = call.name }
            case .tool:
                let callID = message.toolCallID ?? ""
                let name = message.toolName ?? names[callID] ?? "tool"
                entries.append(
                    .toolOutput(
                        callID: callID, toolName: name,
                        text: message.isToolError ? "The tool failed: \(message.text)" : message.text))
            }
        }
        return entries
    }

    /// A message as prompt lines: what was said, each tool call, each tool result.
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
        let call = ToolCall(
            id: "call_" + String(UInt64.random(in: 1...UInt64.max), radix: 36), name: name,
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
