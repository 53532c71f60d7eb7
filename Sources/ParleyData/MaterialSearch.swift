import Foundation

/// Full-text search over study materials in plain Swift: each material is cut into passages
/// (paragraphs, long ones into windows of words), passages are ranked by BM25 against the query's
/// words (common function words left out, simple plurals folded), and the best come back as
/// snippets.
///
/// The stores search with their database's own engine (SQLite FTS5, PostgreSQL full text) through
/// ``ConversationStoring/searchMaterials(_:limit:owner:)``; this is the portable fallback, for a
/// store without one. Both take the query's words from ``queryWords(_:)``.
public struct MaterialSearch: Sendable {
    /// One passage found.
    public struct Hit: Sendable, Equatable, Codable {
        /// The material's id.
        public var material: Int64
        /// The material's title.
        public var title: String
        /// The passage, cut to ``MaterialSearch/snippetLimit`` characters around its first match.
        public var snippet: String
        /// How well it matches (higher is better); scores compare only within one search.
        public var score: Double

        /// Creates a hit.
        public init(material: Int64, title: String, snippet: String, score: Double) {
            self.material = material
            self.title = title
            self.snippet = snippet
            self.score = score
        }
    }

    /// The longest snippet, in characters.
    public static let snippetLimit = 400
    /// The most words in one passage.
    package static let passageWords = 80
    /// The most words of one query that are searched for.
    public static let queryWordLimit = 32

    private struct Passage {
        var material: Int64
        var title: String
        var text: String
        var terms: [String: Int]
        var length: Int
    }

    private let passages: [Passage]
    private let documentFrequency: [String: Int]
    private let averageLength: Double

    /// Indexes `materials`.
    public init(_ materials: [Material]) {
        var passages: [Passage] = []
        for material in materials {
            for text in Self.passages(of: material.text) {
                let words = Self.terms(text) + Self.terms(material.title)
                guard !words.isEmpty else { continue }
                passages.append(
                    Passage(
                        material: material.id, title: material.title, text: text,
                        terms: words.reduce(into: [:]) { $0[$1, default: 0] += 1 }, length: words.count))
            }
        }
        self.passages = passages
        documentFrequency = passages.reduce(into: [:]) { counts, passage in
            for term in passage.terms.keys { counts[term, default: 0] += 1 }
        }
        averageLength = passages.isEmpty ? 1 : Double(passages.map(\.length).reduce(0, +)) / Double(passages.count)
    }

    /// The best `limit` passages for `query`, best first, each from a different material (its
    /// best passage); none when no passage shares a word with it.
    public func search(_ query: String, limit: Int = 3) -> [Hit] {
        let queryTerms = Set(Self.terms(query))
        guard !queryTerms.isEmpty, !passages.isEmpty else { return [] }
        let count = Double(passages.count)
        let k1 = 1.2, b = 0.75
        var scored: [(Int, Double)] = []
        for (index, passage) in passages.enumerated() {
            var score = 0.0
            for term in queryTerms {
                guard let frequency = passage.terms[term].map(Double.init) else { continue }
                let documents = Double(documentFrequency[term] ?? 0)
                let idf = log(1 + (count - documents + 0.5) / (documents + 0.5))
                score += idf * frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * Double(passage.length) / averageLength))
            }
            if score > 0 { scored.append((index, score)) }
        }
        var seen: Set<Int64> = []
        let best = scored.sorted { $0.1 > $1.1 }.filter { index, _ in seen.insert(passages[index].material).inserted }
        return best.prefix(max(1, limit)).map { index, score in
            let passage = passages[index]
            return Hit(material: passage.material, title: passage.title, snippet: Self.snippet(passage.text, around: queryTerms), score: score)
        }
    }

    /// Paragraphs, with long ones cut into windows of ``passageWords`` words: the passages that
    /// are searched, and embedded for searching by meaning.
    public static func passages(of text: String) -> [String] {
        text.components(separatedBy: "\n\n").flatMap { paragraph -> [String] in
            let words = paragraph.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { return [] }
            return stride(from: 0, to: words.count, by: passageWords).map { start in
                words[start..<min(words.count, start + passageWords)].joined(separator: " ")
            }
        }
    }

    /// Words that say little about a topic.
    package static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "about", "as", "is", "are",
        "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "what", "which", "who", "whom", "when", "where",
        "why", "how", "do", "does", "did", "my", "me", "i", "you", "your", "we", "our", "they", "their", "he", "she", "his", "her",
        "say", "says", "said", "tell", "note", "notes", "can", "could", "would", "should", "will", "there", "any", "some", "please",
    ]

    /// The text's searchable words: lower-cased, function words left out, a plural `s` dropped.
    package static func terms(_ text: String) -> [String] {
        words(text).map { word in
            if word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss") { return String(word.dropLast()) }
            return word
        }
    }

    /// The text's words, lower-cased, each a run of letters and digits, function words left out.
    private static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter { !stopWords.contains($0) }
    }

    /// What a full-text engine searches for in `query`: its words (lower-cased, function words
    /// left out), each once, in the order they first come, at most ``queryWordLimit``. Each is a
    /// run of letters and digits only, so it cannot carry an engine's query syntax (quotes,
    /// operators, prefixes). Empty when the query has no searchable word. Not stemmed: the
    /// engine stems.
    public static func queryWords(_ query: String) -> [String] {
        var seen: Set<String> = []
        return Array(words(query).filter { seen.insert($0).inserted }.prefix(queryWordLimit))
    }

    /// A snippet an engine made, fit for a reply: runs of white space (line breaks included)
    /// made one space, and cut to ``snippetLimit`` characters, ending with `…` when cut.
    public static func fitted(snippet: String) -> String {
        let text = snippet.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard text.count > snippetLimit else { return text }
        return String(text.prefix(snippetLimit - 1)) + "…"
    }

    /// `text` cut to ``snippetLimit`` characters, starting shortly before its first matching word.
    package static func snippet(_ text: String, around queryTerms: Set<String>) -> String {
        guard text.count > snippetLimit else { return text }
        let words = text.split(separator: " ")
        let first = words.firstIndex { !Set(terms(String($0))).isDisjoint(with: queryTerms) } ?? 0
        var snippet = words[max(0, first - 8)...].joined(separator: " ")
        if snippet.count > snippetLimit { snippet = String(snippet.prefix(snippetLimit - 1)) + "…" }
        return (first > 8 ? "…" : "") + snippet
    }
}
