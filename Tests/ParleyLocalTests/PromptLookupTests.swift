import Testing
@testable import ParleyLocal

/// Guessing a reply's next tokens from the words at hand, without the engine: token ids stand
/// for words.
@Suite("Prompt lookup")
struct PromptLookupTests {
    // 90 and 91 play a template's control tokens.
    static func isControl(_ token: Int32) -> Bool { token >= 90 }

    @Test("after a token of the question, the words that followed it there are proposed, as many as allowed")
    func followsTheQuestion() {
        // [system 1 2 3] <90> [question: 10 11 12 13 14] <91> <90> [reply: 20 11]
        let tokens: [Int32] = [1, 2, 3, 90, 10, 11, 12, 13, 14, 91, 90, 20, 11]
        let lookup = PromptLookup(length: 3, messageStart: 4)
        #expect(lookup.drafts(in: tokens) == [12, 13, 14])
        #expect(PromptLookup(length: 2, messageStart: 4).drafts(in: tokens) == [12, 13])
        #expect(PromptLookup(length: 0, messageStart: 4).drafts(in: tokens).isEmpty)
    }

    @Test("a proposal stops before a control token; a token never seen proposes nothing")
    func stopsAtControl() {
        let tokens: [Int32] = [90, 10, 11, 12, 91, 90, 12]
        #expect(PromptLookup(length: 3, messageStart: 1).drafts(in: tokens).isEmpty)
        let unseen: [Int32] = [90, 10, 11, 12, 91, 90, 40]
        #expect(PromptLookup(length: 3, messageStart: 1).drafts(in: unseen).isEmpty)
        let beforeEnd: [Int32] = [90, 10, 11, 12, 91, 90, 11]
        #expect(PromptLookup(length: 3, messageStart: 1).drafts(in: beforeEnd) == [12])
    }

    @Test("one token matches only in the last message; two match anywhere in the window, the latest first")
    func matchRules() {
        // The system prompt has 5 6 7; the question does not: 5 alone proposes nothing.
        let single: [Int32] = [5, 6, 7, 90, 10, 11, 91, 90, 5]
        #expect(PromptLookup(length: 3, messageStart: 4).drafts(in: single).isEmpty)
        // ... but 4 5 (two tokens) is found there.
        let pair: [Int32] = [4, 5, 6, 7, 90, 10, 11, 91, 90, 4, 5]
        #expect(PromptLookup(length: 3, messageStart: 5).drafts(in: pair) == [6, 7])
        // Two places hold 4 5: the later one's continuation wins.
        let twice: [Int32] = [4, 5, 6, 90, 4, 5, 8, 9, 91, 90, 4, 5]
        #expect(PromptLookup(length: 3, messageStart: 4).drafts(in: twice) == [8, 9])
        // A pair beats a single-token match later in the question.
        let both: [Int32] = [3, 5, 6, 90, 5, 7, 91, 90, 3, 5]
        #expect(PromptLookup(length: 3, messageStart: 4).drafts(in: both) == [6])
        // Beyond the window, a pair is not looked for.
        var far: [Int32] = [4, 5, 6]
        far += [Int32](repeating: 1, count: 300)
        far += [4, 5]
        #expect(PromptLookup(length: 3, messageStart: far.count - 1).drafts(in: far).isEmpty)
    }

    @Test("guessing goes on where a batch costs about a step, stops where it costs more than its confirmed guesses save, and is tried again later")
    func economy() {
        var cheap = GuessEconomy()
        #expect(cheap.pays(), "hopeful until measured")
        // Four tokens in 98 ms against 85 for one, one guess in three right.
        for _ in 0..<10 {
            cheap.step(0.085)
            cheap.batch(0.098, confirmed: 1)
        }
        #expect(cheap.pays())

        var dear = GuessEconomy()
        // Four tokens in 125 ms against 48 for one: one confirmed guess a batch does not pay.
        for _ in 0..<10 {
            dear.step(0.048)
            dear.batch(0.125, confirmed: 1)
        }
        #expect(!dear.pays())
        for _ in 0..<(dear.retryAfter - 1) { dear.step(0.048) }
        #expect(!dear.pays())
        dear.step(0.048)
        #expect(dear.pays(), "tried again after \(dear.retryAfter) steps")
        // ... and there, all three right pays: 3 × 48 > 125 − 48.
        for _ in 0..<10 { dear.batch(0.125, confirmed: 3) }
        #expect(dear.pays())
    }
}

extension PromptLookup {
    /// The proposals after `tokens`' last token (the newest), the rest being memory.
    func drafts(in tokens: [Int32]) -> [Int32] {
        guard let newest = tokens.last else { return [] }
        return drafts(after: newest, in: Array(tokens.dropLast()), isControl: PromptLookupTests.isControl)
    }
}
