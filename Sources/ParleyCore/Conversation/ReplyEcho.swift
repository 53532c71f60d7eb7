/// Tells words heard over a reply that are the reply itself, come back from the speakers, from
/// words the user says.
///
/// Where no echo canceller runs (or one that has not yet learnt the room), the microphone hears
/// the assistant's own voice, and the transcript of that speech is the reply's words. Heard
/// words are an echo when most of them appear, in order, among the words the reply has written
/// so far: at least ``minimumShare`` of them and at least ``minimumWords``. A single word is
/// never taken for an echo ("No.", "Stop."): it may well be meant.
public struct ReplyEcho: Sendable, Equatable {
    /// The least share of the heard words that must appear, in order, in the reply.
    public var minimumShare: Double
    /// The fewest heard words that must appear in the reply.
    public var minimumWords: Int
    /// How many of the reply's last words are compared (the echo lags the voice by less than
    /// a sentence; the reply's beginning is compared too while it is short).
    public var replyWindow: Int

    /// Creates the rule; the defaults take words for an echo when at least 60% of them, and
    /// at least two, are the reply's.
    public init(minimumShare: Double = 0.6, minimumWords: Int = 2, replyWindow: Int = 400) {
        self.minimumShare = minimumShare
        self.minimumWords = max(1, minimumWords)
        self.replyWindow = max(1, replyWindow)
    }

    /// Whether `heard` is an echo of `reply` (the text the reply has written so far).
    public func isEcho(_ heard: String, of reply: String) -> Bool {
        let heardWords = Self.words(heard)
        guard heardWords.count >= minimumWords else { return false }
        let replyWords = Array(Self.words(reply).suffix(replyWindow))
        guard replyWords.count >= minimumWords else { return false }
        let matched = Self.commonInOrder(heardWords, replyWords)
        return matched >= minimumWords && Double(matched) >= minimumShare * Double(heardWords.count)
    }

    /// The words of `text`, lowercased, without punctuation (an apostrophe inside a word stays).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber || (character == "'" && !current.isEmpty) {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current.hasSuffix("'") ? String(current.dropLast()) : current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current.hasSuffix("'") ? String(current.dropLast()) : current) }
        return words
    }

    /// The length of the longest common subsequence of `a` and `b`.
    static func commonInOrder(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var current = previous
        for left in a {
            for (index, right) in b.enumerated() {
                current[index + 1] = left == right ? previous[index] + 1 : max(previous[index + 1], current[index])
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
