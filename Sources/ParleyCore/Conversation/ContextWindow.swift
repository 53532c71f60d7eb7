/// Trims a conversation's history to what fits a model's context window.
///
/// Token counts are estimated (about four characters a token, plus a few for each message's
/// framing), which errs on the safe side for English. The system messages and the newest
/// message are always kept; older turns are dropped, oldest first.
public struct ContextWindow: Sendable, Equatable {
    /// The model's context length in tokens.
    public var tokens: Int
    /// Tokens reserved for the reply.
    public var reservedForReply: Int

    /// Creates a window.
    public init(tokens: Int, reservedForReply: Int) {
        self.tokens = tokens
        self.reservedForReply = reservedForReply
    }

    /// The estimated token count of one message.
    public static func estimatedTokens(of message: ChatMessage) -> Int {
        (message.text.utf8.count + 3) / 4 + 4
    }

    /// The messages of `history` that fit, in their order.
    public func trim(_ history: [ChatMessage]) -> [ChatMessage] {
        guard let newest = history.last else { return [] }
        let system = history.dropLast().filter { $0.role == .system }
        var budget = tokens - reservedForReply - Self.estimatedTokens(of: newest)
        budget -= system.reduce(0) { $0 + Self.estimatedTokens(of: $1) }
        var kept: [ChatMessage] = []
        for message in history.dropLast().reversed() where message.role != .system {
            let cost = Self.estimatedTokens(of: message)
            guard cost <= budget else { break }
            budget -= cost
            kept.append(message)
        }
        // A kept history never starts with an assistant reply whose question was dropped.
        while kept.last?.role == .assistant { kept.removeLast() }
        return system + kept.reversed() + [newest]
    }
}
