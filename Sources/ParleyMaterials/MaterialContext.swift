import ParleyData

/// Study materials as the context of a question, trimmed to what the model's window holds.
public enum MaterialContext {
    /// About three characters per token: English runs nearer four, so this leaves room.
    static let charactersPerToken = 3

    /// How many characters of each of `materials` fit a window of `tokens`, keeping room for
    /// the instructions, the question and the answer.
    public static func characterBudget(tokens: Int, materials: Int, reserved: Int = 768) -> Int {
        max(400, (tokens - reserved) * charactersPerToken / max(1, materials))
    }

    /// The material as a block of the prompt: its title and text, cut at a paragraph (or
    /// line, or word) boundary to `budget` characters, saying so when cut.
    public static func excerpt(of material: Material, budget: Int) -> String {
        let header = "Study material \"\(material.title)\":"
        guard material.text.count > budget else { return "\(header)\n\(material.text)" }
        let cut = material.text.prefix(budget)
        let boundary = ["\n\n", "\n", ". ", " "].lazy.compactMap { cut.range(of: $0, options: .backwards) }.first {
            cut.distance(from: cut.startIndex, to: $0.lowerBound) > budget / 2
        }
        let kept = boundary.map { cut[..<$0.lowerBound] } ?? cut
        return "\(header)\n\(kept)\n[The rest of \"\(material.title)\" is left out: it does not fit the model's context.]"
    }
}
