/// The language a conversation is held in: one language (an ISO 639-1 code such as `it`), or
/// `auto`, the language each utterance is spoken in, detected by the transcriber.
///
/// English is heard by the English-only Whisper model; any other setting, `auto` included,
/// by the multilingual one (see the Languages page of the docs).
public enum LanguageSetting: Sendable, Hashable, CustomStringConvertible {
    /// Detect the spoken language of each utterance.
    case auto
    /// One language, by its lowercased ISO 639-1 code (or Whisper's three-letter `haw`, `yue`).
    case code(String)

    /// English, the default.
    public static let english = LanguageSetting.code("en")

    /// What went wrong reading a language setting.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text that was given (at most 40 characters of it).
        public let given: String
        public var description: String {
            "'\(given)' is not a language: use auto or a code such as en, it, es, fr or de."
        }
    }

    /// Reads `text`: `auto`, or a language code Whisper knows (`it`, `IT`, `it-IT`, `it_IT`:
    /// the region is dropped).
    public init(parsing text: String) throws(Invalid) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if trimmed == "auto" {
            self = .auto
            return
        }
        let base = String(trimmed.prefix { $0 != "-" && $0 != "_" })
        let region = trimmed.dropFirst(base.count + 1)
        let regionFits = trimmed.count == base.count || (2...4).contains(region.count) && region.allSatisfy { $0.isLetter || $0.isNumber }
        guard Self.whisperCodes.contains(base), regionFits else {
            throw Invalid(given: String(text.prefix(40)))
        }
        self = .code(base)
    }

    /// The code (`nil` on `auto`).
    public var code: String? {
        if case .code(let code) = self { return code }
        return nil
    }

    /// Whether English alone is spoken (the English-only transcriber serves).
    public var isEnglish: Bool { code == "en" }

    /// The language a transcriber is asked for: the code, or `nil` (detect) on `auto`.
    public var transcriptionLanguage: String? { code }

    public var description: String { code ?? "auto" }

    /// The languages `auto` chooses among on device: those Parley has prompts, backchannels
    /// and cues for. Whisper base, left to choose among all of its 99, took synthetic Italian
    /// questions for Thai.
    public static let detectable: Set<String> = ["en", "it", "es", "fr", "de"]

    /// The languages Whisper transcribes (its tokenizer's list), by code.
    public static let whisperCodes: Set<String> = [
        "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id", "hi", "fi", "vi",
        "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk",
        "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
        "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo",
        "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue",
    ]
}
