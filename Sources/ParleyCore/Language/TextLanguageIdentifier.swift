/// Tells which of a few languages a piece of text is written in, from its common words and its
/// letters: enough to choose a voice for each sentence of a reply.
///
/// Each language scores a point for each of the text's words in its list of common words
/// (articles, pronouns, prepositions, auxiliaries) and half a point for each letter only it
/// writes among those compared ("ñ" for Spanish, "ß" for German, …). The best score wins; a
/// tie, or no score at all, gives `fallback`.
public struct TextLanguageIdentifier: Sendable {
    /// The languages compared, by code, with their common words.
    public let commonWords: [String: Set<String>]
    /// Letters that point to one language.
    public let letters: [Character: String]

    /// Creates an identifier over `languages` (codes among ``TextLanguageIdentifier/standardWords``).
    public init(languages: [String] = ["en", "it", "es", "fr", "de"]) {
        commonWords = Dictionary(uniqueKeysWithValues: languages.compactMap { code in Self.standardWords[code].map { (code, $0) } })
        letters = Self.standardLetters.filter { languages.contains($0.value) }
    }

    /// The language of `text` among those compared, or `fallback` when the words do not tell.
    public func language(of text: String, fallback: String) -> String {
        let lowered = text.lowercased()
        var scores: [String: Double] = [:]
        let words = lowered.split { !($0.isLetter || $0 == "'" || $0 == "’") }
            .flatMap { word in
                word.split { $0 == "'" || $0 == "’" }.enumerated().map { index, part in
                    // "l'acqua", "c'est": the elided article or pronoun is its own word ("l'", "c'").
                    index == 0 && word.count > part.count ? String(part) + "'" : String(part)
                }
            }
        for word in words {
            for (code, list) in commonWords where list.contains(word) { scores[code, default: 0] += 1 }
        }
        for character in lowered {
            if let code = letters[character] { scores[code, default: 0] += 0.5 }
        }
        let ranked = scores.sorted { $0.value > $1.value }
        guard let best = ranked.first, best.value > 0 else { return fallback }
        let tied = ranked.prefix { $0.value == best.value }.map(\.key)
        return tied.count == 1 ? best.key : fallback
    }

    /// Common words of English, Italian, Spanish, French and German, lowercased.
    public static let standardWords: [String: Set<String>] = [
        "en": [
            "the", "a", "an", "and", "is", "are", "was", "were", "of", "to", "in", "it", "that", "this", "you", "i", "he", "she",
            "we", "they", "what", "which", "who", "how", "with", "for", "on", "at", "be", "have", "has", "do", "does", "not",
            "your", "my", "there", "can", "will", "would", "from", "by", "or", "but", "its", "it's", "i'm", "about", "today",
            "time", "yes", "hello", "thank", "thanks", "capital", "city", "where", "when", "why",
        ],
        "it": [
            "il", "lo", "la", "i", "gli", "le", "un", "uno", "una", "l'", "di", "del", "della", "dei", "delle", "che", "è", "e",
            "non", "per", "con", "sono", "sei", "siamo", "qual", "quale", "quali", "cosa", "come", "dove", "quando", "perché",
            "chi", "mi", "ti", "ci", "si", "questo", "questa", "nel", "nella", "alla", "al", "ho", "hai", "ha", "anche", "molto",
            "grazie", "ciao", "oggi", "capitale", "città", "sì", "più", "ma", "se", "essere", "sulla", "sul", "dell'", "all'",
            "c'", "un'",
        ],
        "es": [
            "el", "la", "los", "las", "un", "una", "unos", "de", "del", "que", "es", "y", "en", "no", "por", "para", "con",
            "son", "está", "están", "cuál", "qué", "cómo", "dónde", "cuándo", "quién", "porque", "me", "te", "se", "nos",
            "este", "esta", "esto", "al", "lo", "muy", "también", "gracias", "hola", "hoy", "capital", "ciudad", "sí", "más",
            "pero", "si", "soy", "eres", "hay", "su", "sus", "mi", "tu", "yo", "usted",
        ],
        "fr": [
            "le", "la", "les", "un", "une", "des", "de", "du", "l'", "d'", "que", "qui", "est", "et", "en", "ne", "pas", "pour",
            "avec", "sont", "quel", "quelle", "quels", "quoi", "comment", "où", "quand", "pourquoi", "je", "tu", "il", "elle",
            "nous", "vous", "ils", "ce", "cette", "c'", "au", "aux", "dans", "sur", "très", "aussi", "merci", "bonjour",
            "aujourd'hui", "capitale", "ville", "oui", "plus", "mais", "si", "suis", "es", "j'", "qu'", "n'", "s'", "une",
        ],
        "de": [
            "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "und", "ist", "sind", "war", "nicht",
            "zu", "von", "mit", "für", "auf", "was", "welche", "welcher", "wie", "wo", "wann", "warum", "wer", "ich", "du", "er",
            "sie", "es", "wir", "ihr", "dies", "diese", "im", "am", "sehr", "auch", "danke", "hallo", "heute", "hauptstadt",
            "stadt", "ja", "nein", "mehr", "aber", "wenn", "bin", "bist", "hat", "haben", "gibt", "ein", "mein", "dein",
        ],
    ]

    /// Letters written by one of the five languages only.
    public static let standardLetters: [Character: String] = [
        "ñ": "es", "¿": "es", "¡": "es", "á": "es", "í": "es", "ó": "es", "ú": "es",
        "ß": "de", "ä": "de", "ö": "de", "ü": "de",
        "ç": "fr", "ê": "fr", "â": "fr", "î": "fr", "ô": "fr", "û": "fr", "ë": "fr", "œ": "fr",
        "ò": "it", "ì": "it",
    ]
}
