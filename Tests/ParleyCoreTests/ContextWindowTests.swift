import Testing
@testable import ParleyCore

@Suite("The context window")
struct ContextWindowTests {
    @Test("old turns are dropped first; the system prompt and the newest message stay")
    func trims() {
        let history: [ChatMessage] =
            [.system("Be brief.")]
            + (0..<50).flatMap { [ChatMessage.user("question \($0) " + String(repeating: "x", count: 100)), .assistant("answer \($0)")] }
            + [.user("last question")]
        let trimmed = ContextWindow(tokens: 400, reservedForReply: 100).trim(history)
        #expect(trimmed.first == .system("Be brief."))
        #expect(trimmed.last == .user("last question"))
        #expect(trimmed.count < history.count)
        #expect(trimmed[1].role == .user)
        #expect(trimmed.dropFirst().dropLast().last?.text == "answer 49")
        let estimated = trimmed.reduce(0) { $0 + ContextWindow.estimatedTokens(of: $1) }
        #expect(estimated <= 300)
    }

    @Test("a history that fits is unchanged")
    func fits() {
        let history: [ChatMessage] = [.system("s"), .user("a"), .assistant("b"), .user("c")]
        #expect(ContextWindow(tokens: 2048, reservedForReply: 128).trim(history) == history)
    }
}
