/// Cuts a stream of text (LLM tokens) into sentences, so each can be spoken as soon as it is
/// complete while the model still writes the rest.
///
/// A sentence ends at `.`, `!`, `?` or `…` (optionally followed by closing quotes or brackets)
/// when whitespace follows, and at a line break. A period does not end a sentence after a
/// known abbreviation ("Dr.", "e.g.") or a single letter ("J. Smith"); decimals such as "3.14"
/// never end one because no whitespace follows the point.
public struct SentenceChunker: Sendable {
    /// Lower-cased abbreviations (without their final period) that do not end a sentence.
    public static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e",
        "approx", "no", "fig", "inc", "ltd", "co", "jan", "feb", "mar", "apr", "jun", "jul",
        "aug", "sep", "sept", "oct", "nov", "dec", "a.m", "p.m", "u.s", "u.k",
    ]

    /// Lower-cased words that open a clause of their own ("… know Tom | because they …"): the
    /// first chunk may end before one, as it may at a comma. Not "and", "or" or "that", which
    /// as often join words inside a phrase ("red and blue", "so that").
    public static let clauseOpeners: Set<String> = [
        "because", "which", "who", "whose", "where", "when", "while", "although", "though", "since", "unless", "but",
        "if", "so",
    ]

    /// Lower-cased verbs that open the predicate of a statement ("The capital of France | is
    /// Paris."): where a speaker takes a breath, and so where the first chunk may end once the
    /// subject has ``firstPredicateWords`` words.
    public static let predicateOpeners: Set<String> = ["is", "are", "was", "were"]

    /// Lower-cased words that open a phrase of their own: prepositions, and verbs that open a
    /// predicate or follow a subject ("Your meeting | with the teacher …", "The capital | of
    /// France …", "The Pacific | is …"): where the first chunk may end once it has
    /// ``firstPhraseWords`` words, so that a voice slow to start speaks a short phrase first.
    public static let phraseOpeners: Set<String> = [
        "of", "in", "on", "at", "to", "for", "with", "from", "by", "about", "around", "into", "over", "after",
        "before", "during", "until", "than", "through", "across", "under", "between", "without", "near",
        "is", "are", "was", "were", "will", "can", "could", "would", "should", "may", "might", "must", "has", "have",
        "had", "does", "did",
    ]

    /// Lower-cased words a phrase does not end on (articles, possessives, prepositions,
    /// auxiliaries, conjunctions, degree words): "The capital | of" may be cut, "It will | be"
    /// and "The | largest" may not.
    public static let phraseContinuers: Set<String> = phraseOpeners.union([
        "a", "an", "the", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these", "those",
        "and", "or", "but", "not", "no", "very", "more", "most", "so", "too", "as", "be", "been", "do", "i", "you",
        "we", "they", "he", "she", "it", "there", "some", "any", "every", "each", "one",
    ])

    private var pending = ""
    /// Whether a chunk has been cut yet.
    private var cutAny = false
    /// The words the first chunk needs before it may end at a clause (`,` `;` `:`); `nil`:
    /// only at sentence ends.
    public let firstClauseWords: Int?
    /// The words the first chunk needs before it may end before a ``predicateOpeners`` verb;
    /// `nil`: never there.
    public let firstPredicateWords: Int?
    /// The words the first chunk needs before it may end before a number; `nil`: never there.
    public let firstNumberWords: Int?
    /// The words the first chunk needs before it may end at a comma, semicolon or colon;
    /// `nil`: ``firstClauseWords``.
    public let firstMarkWords: Int?
    /// The words the first chunk needs before it may end before a word that opens a phrase
    /// (``phraseOpeners``); `nil`: never there.
    public let firstPhraseWords: Int?

    /// Creates an empty chunker.
    /// - Parameter firstClauseWords: when set, the first chunk also ends at a comma, semicolon
    ///   or colon, before an opening parenthesis, or before a word that opens a clause
    ///   (``clauseOpeners``), with at least this many words before it ("The largest planet in
    ///   our solar system," of a long first sentence), so the voice can start on it while the
    ///   model writes the rest; later chunks are whole sentences.
    /// - Parameter firstPredicateWords: when set, the first chunk also ends before a verb that
    ///   opens the predicate (``predicateOpeners``) with at least this many words before it, as
    ///   soon as the verb is written (whatever word it turns out to begin, the cut is between
    ///   two words): the subject is spoken while the model writes what it says of it.
    /// - Parameter firstNumberWords: when set, the first chunk also ends before a number (a
    ///   word that begins with a digit) with at least this many words before it, as soon as its
    ///   first digit is written: "The moon is approximately | 384,400 kilometers away." A model
    ///   writes a number a digit at a time, so a long one takes as long to write as a phrase.
    /// - Parameter firstMarkWords: when set, the words the first chunk needs before it may end
    ///   at a comma, semicolon or colon, in place of `firstClauseWords` ("I apologize, | but
    ///   …": a speaker breathes at a comma after two words, not before "so" after two).
    /// - Parameter firstPhraseWords: when set, the first chunk also ends before a whole word that
    ///   opens a phrase (``phraseOpeners``) with at least this many words before it, the last of
    ///   them one a phrase may end on (not in ``phraseContinuers``): "Your meeting | with the
    ///   science teacher starts in ten minutes." A short first phrase is spoken sooner by a
    ///   voice whose time grows with the length of what it says, and needs fewer of the
    ///   model's words.
    public init(
        firstClauseWords: Int? = nil, firstPredicateWords: Int? = nil, firstNumberWords: Int? = nil,
        firstMarkWords: Int? = nil, firstPhraseWords: Int? = nil
    ) {
        self.firstClauseWords = firstClauseWords
        self.firstPredicateWords = firstPredicateWords
        self.firstNumberWords = firstNumberWords
        self.firstMarkWords = firstMarkWords
        self.firstPhraseWords = firstPhraseWords
    }

    /// Adds text and returns the sentences it completed, trimmed, in order.
    public mutating func append(_ text: String) -> [String] {
        pending += text
        var sentences: [String] = []
        while let cut = firstBoundary() {
            let sentence = String(pending[..<cut]).trimmingWhitespace()
            pending = String(pending[cut...])
            if !sentence.isEmpty {
                sentences.append(sentence)
                cutAny = true
            }
        }
        return sentences
    }

    /// Returns whatever text is left (an unfinished last sentence), trimmed, or `nil`.
    public mutating func finish() -> String? {
        let rest = pending.trimmingWhitespace()
        pending = ""
        return rest.isEmpty ? nil : rest
    }

    /// The index just past the first complete sentence in `pending`, if there is one.
    private func firstBoundary() -> String.Index? {
        let text = pending
        var index = text.startIndex
        // Words begun before `index` (counted only while the first chunk is open).
        var words = 0, inWord = false
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" {
                return text.index(after: index)
            }
            if !cutAny {
                switch firstChunkEnd(at: index, after: words, in: text) {
                case .here(let end): return end
                case .needMoreText: return nil
                case .no: break
                }
                if !character.isWhitespace, !inWord { words += 1 }
                inWord = !character.isWhitespace
            }
            if character == "." || character == "!" || character == "?" || character == "…" {
                var end = text.index(after: index)
                while end < text.endIndex, "\"'”’)]".contains(text[end]) { end = text.index(after: end) }
                guard end < text.endIndex else { return nil }  // need to see what follows
                if text[end].isWhitespace, character != "." || !isAbbreviation(before: index) {
                    return end
                }
            }
            index = text.index(after: index)
        }
        return nil
    }

    private enum FirstChunkEnd {
        case here(String.Index)
        case needMoreText
        case no
    }

    /// Whether the first chunk ends at `index`, with `words` words before it: before a
    /// predicate's verb or a number, at a comma, semicolon or colon, before a parenthesis or a
    /// word that opens a clause (see ``init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``).
    private func firstChunkEnd(at index: String.Index, after words: Int, in text: String) -> FirstChunkEnd {
        let character = text[index]
        if character == "," || character == ";" || character == ":" {
            guard let needed = firstMarkWords ?? firstClauseWords, words >= needed else { return .no }
            let end = text.index(after: index)
            guard end < text.endIndex else { return .needMoreText }
            return text[end].isWhitespace ? .here(end) : .no
        }
        if character == "(", let firstClauseWords, words >= firstClauseWords,
            index > text.startIndex, text[text.index(before: index)].isWhitespace
        {
            // A parenthesis opens an aside: the clause ends before it.
            return .here(index)
        }
        guard character.isWhitespace else { return .no }
        if let firstPredicateWords, words >= firstPredicateWords, opensPredicate(after: index, in: text) { return .here(index) }
        if let firstNumberWords, words >= firstNumberWords, text.index(after: index) < text.endIndex,
            text[text.index(after: index)].isNumber
        {
            return .here(index)
        }
        if let firstClauseWords, words >= firstClauseWords, opensClause(after: index, in: text) { return .here(index) }
        if let firstPhraseWords, words >= firstPhraseWords, opensPhrase(after: index, in: text),
            let last = text[..<index].split(whereSeparator: \.isWhitespace).last,
            !Self.phraseContinuers.contains(last.lowercased()), last.last?.isLetter == true
        {
            return .here(index)
        }
        return .no
    }

    /// Whether the word after the whitespace at `space` is a whole word (whitespace follows
    /// it) that opens a clause.
    private func opensClause(after space: String.Index, in text: String) -> Bool {
        guard let (word, whole) = letters(after: space, in: text), whole else { return false }
        return Self.clauseOpeners.contains(word.lowercased())
    }

    /// Whether the word after the whitespace at `space` is a whole word that opens a phrase.
    private func opensPhrase(after space: String.Index, in text: String) -> Bool {
        guard let (word, whole) = letters(after: space, in: text), whole else { return false }
        return Self.phraseOpeners.contains(word.lowercased())
    }

    /// Whether the word after the whitespace at `space` is written up to a verb that opens a
    /// predicate: the verb and whitespace, or the verb at the end of what is written so far.
    private func opensPredicate(after space: String.Index, in text: String) -> Bool {
        guard let (word, _) = letters(after: space, in: text) else { return false }
        return Self.predicateOpeners.contains(word.lowercased())
    }

    /// The letters after the whitespace at `space`, when whitespace or the end of what is
    /// written follows them (not a digit or a mark), and whether it is whitespace (the word is
    /// whole).
    private func letters(after space: String.Index, in text: String) -> (word: Substring, whole: Bool)? {
        let start = text.index(after: space)
        var end = start
        while end < text.endIndex, text[end].isLetter { end = text.index(after: end) }
        guard end > start, end == text.endIndex || text[end].isWhitespace else { return nil }
        return (text[start..<end], end < text.endIndex)
    }

    /// Whether the word ending at the period at `dot` is an abbreviation or an initial.
    private func isAbbreviation(before dot: String.Index) -> Bool {
        let prefix = pending[..<dot]
        let word = prefix.split(whereSeparator: { $0.isWhitespace }).last.map(String.init) ?? ""
        let bare = word.trimmingCharacters(in: "(\"'“‘")
        if bare.count == 1, bare.first?.isLetter == true, bare.first?.isUppercase == true { return true }
        return Self.abbreviations.contains(bare.lowercased())
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }

    /// The string without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
