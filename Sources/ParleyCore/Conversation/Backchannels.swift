/// The short words a listener says to show they follow ("mm-hmm", "yeah", "okay", "right"), by
/// language: speech made only of them, or of no words at all, never interrupts a reply.
///
/// A transcript is a backchannel when its words, lowercased and without punctuation, are one
/// or more of the listed phrases in a row ("yeah, yeah", "okay, right") — at most
/// ``maximumWords`` words in all. A hum, in any language, is one too: a word of only m, h and
/// n sounds ("mm-mm", "mhm", "hmm-hmm"), however a transcriber spells it; so is a murmur of two
/// or more joined syllables such as "uh", "huh" and "buh", the ways whisper.cpp writes a mumbled
/// "uh-huh" ("uh-uh", "buh-uh"). A spoken "uh-uh" meaning no does not cut a reply either; "no"
/// or "nuh-uh" does.
public struct Backchannels: Sendable, Equatable {
    /// The phrases by language code ("en", "es", …), lowercased.
    public private(set) var phrases: [String: Set<String>]
    /// The most words a backchannel has.
    public var maximumWords: Int

    /// Creates the lists; the defaults cover English, Italian, Spanish, German and French.
    public init(phrases: [String: [String]] = Backchannels.defaultPhrases, maximumWords: Int = 6) {
        self.phrases = phrases.mapValues { Set($0.map { Self.words(of: $0).joined(separator: " ") }.filter { !$0.isEmpty }) }
        self.maximumWords = maximumWords
    }

    /// Replaces the phrases of `language` (a language code such as "en").
    public mutating func set(_ list: [String], for language: String) {
        phrases[Self.base(language)] = Set(list.map { Self.words(of: $0).joined(separator: " ") }.filter { !$0.isEmpty })
    }

    /// Whether `text` is a backchannel or noise in `language` (a code such as "en" or "en-US";
    /// `nil`: in any listed language).
    public func contains(_ text: String, language: String? = nil) -> Bool {
        let words = Self.words(of: text)
        guard !words.isEmpty else { return true }
        guard words.count <= maximumWords else { return false }
        let list: Set<String>
        if let language, let listed = phrases[Self.base(language)] {
            list = listed
        } else {
            list = phrases.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        let longest = list.map { $0.split(separator: " ").count }.max() ?? 0
        // Whether words[from...] is a run of listed phrases.
        var covered = [Bool](repeating: false, count: words.count + 1)
        covered[words.count] = true
        for start in stride(from: words.count - 1, through: 0, by: -1) {
            if covered[start + 1], Self.isHum(words[start]) || Self.isMurmur(words[start]) {
                covered[start] = true
                continue
            }
            for length in 1...max(1, min(longest, words.count - start)) where covered[start + length] {
                if list.contains(words[start..<(start + length)].joined(separator: " ")) {
                    covered[start] = true
                    break
                }
            }
        }
        return covered[0]
    }

    /// The lowercased words of `text`, without punctuation; a hyphen or an apostrophe inside a
    /// word keeps it whole ("mm-hmm", "d'accord").
    static func words(of text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "'" || $0 == "’") })
            .map { $0.replacingApostrophes().trimmingHyphens() }
            .filter { !$0.isEmpty }
    }

    /// Whether `word` is a hum: only m, h and n, with an m in it ("mm-mm", "mhm", "hmm").
    static func isHum(_ word: String) -> Bool {
        word.contains("m") && word.allSatisfy { "mhn-".contains($0) }
    }

    /// The syllables a murmur is made of.
    static let murmurSyllables: Set<Substring> = ["uh", "huh", "buh", "um", "hum", "mm", "hm", "hmm", "mhm", "ah", "ha", "eh"]

    /// Whether `word` is a murmur: two or more syllables of ``murmurSyllables`` joined by
    /// hyphens ("uh-uh", "buh-uh", "uh-hum").
    static func isMurmur(_ word: String) -> Bool {
        let syllables = word.split(separator: "-")
        return syllables.count >= 2 && syllables.allSatisfy { murmurSyllables.contains($0) }
    }

    private static func base(_ language: String) -> String {
        String(language.lowercased().prefix { $0.isLetter })
    }

    /// The lists Parley starts with.
    public static let defaultPhrases: [String: [String]] = [
        "en": [
            "mm", "mmm", "mm-hmm", "mhm", "hmm", "hm", "uh-huh", "uh huh", "mm hmm", "uh", "um", "ah", "oh", "ooh", "yeah", "yes",
            "yep", "yup", "ok", "okay", "right", "sure", "i see", "got it", "cool", "nice", "wow", "really", "true", "exactly",
            "alright", "all right", "uh-hum", "ha", "haha",
        ],
        "it": [
            "mm", "mmm", "mm-hmm", "mhm", "hm", "sì", "si", "certo", "ok", "okay", "va bene", "d'accordo", "ah", "eh", "oh",
            "esatto", "capisco", "ho capito", "giusto", "vero", "davvero", "già", "ecco", "beh", "perfetto", "bene", "infatti",
        ],
        "es": [
            "mm", "mmm", "mm-hmm", "ajá", "aja", "sí", "si", "vale", "claro", "ya", "bueno", "ok", "okay", "de acuerdo", "ah", "eh",
            "oh", "exacto", "entiendo", "ya veo", "cierto", "mhm", "vaya",
        ],
        "de": [
            "mm", "mmm", "mm-hmm", "mhm", "hm", "ja", "jaja", "genau", "okay", "ok", "stimmt", "richtig", "klar", "ach so", "aha",
            "ah", "oh", "gut", "na ja", "super", "echt",
        ],
        "fr": [
            "mm", "mmm", "mm-hmm", "mhm", "hm", "oui", "ouais", "d'accord", "ok", "okay", "voilà", "exactement", "ah", "oh", "euh",
            "bien sûr", "je vois", "c'est ça", "bon", "ah bon", "carrément",
        ],
    ]
}

private extension Substring {
    func replacingApostrophes() -> String { String(map { $0 == "’" ? "'" : $0 }) }
}

private extension String {
    func trimmingHyphens() -> String {
        var text = Substring(self)
        while text.first == "-" || text.first == "'" { text = text.dropFirst() }
        while text.last == "-" || text.last == "'" { text = text.dropLast() }
        return String(text)
    }
}
