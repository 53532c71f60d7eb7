/// How hard a text is to read: the Flesch–Kincaid grade level, from sentence length and
/// syllables per word (grade ≈ the school year that reads it comfortably).
///
/// grade = 0.39 × words/sentences + 11.8 × syllables/words − 15.59. Syllables are counted
/// with the usual heuristic (groups of vowels, a silent final "e" dropped), which is close
/// enough to compare a text with its simplification.
public struct Readability: Sendable, Equatable, CustomStringConvertible {
    /// Sentences (at least 1 for a text with words).
    public var sentences: Int
    /// Words.
    public var words: Int
    /// Syllables over all words.
    public var syllables: Int

    /// Measures `text`.
    public init(_ text: String) {
        var sentences = 0
        var words = 0
        var syllables = 0
        var inSentence = false
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            let letters = token.filter { $0.isLetter || $0 == "'" }
            if !letters.isEmpty {
                words += 1
                syllables += Self.syllables(in: String(letters))
                inSentence = true
            }
            if let last = token.last(where: { !"\"')]”’".contains($0) }), ".!?".contains(last), inSentence {
                sentences += 1
                inSentence = false
            }
        }
        if inSentence { sentences += 1 }
        self.sentences = sentences
        self.words = words
        self.syllables = syllables
    }

    /// The Flesch–Kincaid grade level (0 for a text without words).
    public var grade: Double {
        guard words > 0, sentences > 0 else { return 0 }
        return 0.39 * Double(words) / Double(sentences) + 11.8 * Double(syllables) / Double(words) - 15.59
    }

    /// Words per sentence.
    public var wordsPerSentence: Double { sentences > 0 ? Double(words) / Double(sentences) : 0 }

    public var description: String {
        "grade \(Self.rounded(grade)) (\(words) words, \(sentences) sentences, \(Self.rounded(wordsPerSentence)) words per sentence)"
    }

    static func rounded(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    /// Syllables in one word, by vowel groups.
    static func syllables(in word: String) -> Int {
        let lower = word.lowercased().filter(\.isLetter)
        guard !lower.isEmpty else { return 0 }
        let vowels: Set<Character> = ["a", "e", "i", "o", "u", "y"]
        var count = 0
        var previousWasVowel = false
        for character in lower {
            let isVowel = vowels.contains(character)
            if isVowel, !previousWasVowel { count += 1 }
            previousWasVowel = isVowel
        }
        if lower.hasSuffix("e"), !lower.hasSuffix("le"), count > 1 { count -= 1 }
        if lower.hasSuffix("es") || lower.hasSuffix("ed"), count > 1, lower.count > 3,
            !["ted", "ded", "ses", "zes", "ces", "ges", "xes"].contains(where: { lower.hasSuffix($0) })
        {
            count -= 1
        }
        return max(1, count)
    }
}
