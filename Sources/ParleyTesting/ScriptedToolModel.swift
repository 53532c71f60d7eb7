import ParleyCore

/// A language model that answers each request with the next scripted turn, text or tool
/// calls, and records the requests. For tests of the tool loop's orchestration only.
public actor ScriptedToolModel: LanguageModelProvider {
    /// One scripted answer.
    public enum Turn: Sendable {
        /// Text in these pieces.
        case text([String])
        /// These calls (each sent as one delta and then whole), after optional text.
        case calls([ToolCall], text: String = "")
    }

    public nonisolated let identity: ProviderIdentity
    public nonisolated let capabilities = LanguageModelCapabilities(jsonSchema: true, tools: true)
    private let turns: [Turn]
    private var next = 0
    /// The requests received, in order.
    public private(set) var requests: [ChatRequest] = []

    /// Creates a model that answers the n-th request with `turns[n]` (the last one repeats).
    public init(name: String = "scripted-tools", turns: [Turn]) {
        self.identity = ProviderIdentity(name: name, isLocal: true)
        self.turns = turns
    }

    public nonisolated func availability() async -> Availability { .ready }

    private func take(_ request: ChatRequest) -> Turn {
        requests.append(request)
        defer { next += 1 }
        return turns.isEmpty ? .text([]) : turns[min(next, turns.count - 1)]
    }

    public nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            switch await self.take(request) {
            case .text(let pieces):
                for piece in pieces { continuation.yield(.text(piece)) }
                continuation.yield(.finished(.stop, Usage(outputTokens: pieces.count)))
            case .calls(let calls, let text):
                if !text.isEmpty { continuation.yield(.text(text)) }
                for (index, call) in calls.enumerated() {
                    continuation.yield(.toolCallDelta(ToolCallDelta(index: index, id: call.id, name: call.name, arguments: call.arguments)))
                    continuation.yield(.toolCall(call))
                }
                continuation.yield(.finished(.toolCalls, Usage(outputTokens: calls.count)))
            }
        }
    }
}
