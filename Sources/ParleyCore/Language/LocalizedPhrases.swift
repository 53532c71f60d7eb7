import Foundation

/// The words Parley itself says or tells the model, by language: the voice system prompt, the
/// language's name, and espeak-ng's voice for it.
///
/// English, Italian, Spanish, French and German have their own prompts; any other language
/// gets the English prompt with an instruction to answer in that language.
public enum LocalizedPhrases {
    /// The voice assistant's system prompt in `language` (a code; `nil`: English, and on
    /// `auto` the prompt asks for an answer in the language the user spoke).
    public static func voicePrompt(_ setting: LanguageSetting) -> String {
        guard let code = setting.code else {
            return
                "You are a helpful voice assistant. Answer in the language the user speaks, in one or two short spoken sentences, in plain words, without code, lists or Markdown."
        }
        if let own = voicePrompts[code] { return own }
        let name = englishName(code)
        return
            "You are a helpful voice assistant. Always answer in \(name), in one or two short spoken sentences, in plain words, without code, lists or Markdown."
    }

    /// A text assistant's system prompt in `setting`'s language (`parley chat`).
    public static func chatPrompt(_ setting: LanguageSetting) -> String {
        guard let code = setting.code else { return "You are a helpful assistant. Answer in the language the user writes in." }
        if let own = chatPrompts[code] { return own }
        return "You are a helpful assistant. Always answer in \(englishName(code))."
    }

    /// The text prompts written in their own language.
    public static let chatPrompts: [String: String] = [
        "en": "You are a helpful assistant.",
        "it": "Sei un assistente disponibile. Rispondi sempre in italiano.",
        "es": "Eres un asistente servicial. Responde siempre en español.",
        "fr": "Tu es un assistant serviable. Réponds toujours en français.",
        "de": "Du bist ein hilfsbereiter Assistent. Antworte immer auf Deutsch.",
    ]

    /// The voice prompts written in their own language.
    public static let voicePrompts: [String: String] = [
        "en": "You are a helpful voice assistant. Answer in one or two short spoken sentences, in plain words, without code, lists or Markdown.",
        "it":
            "Sei un assistente vocale disponibile. Rispondi sempre in italiano, con una o due frasi brevi da dire ad alta voce, con parole semplici, senza codice, elenchi o Markdown.",
        "es":
            "Eres un asistente de voz servicial. Responde siempre en español, con una o dos frases cortas para decir en voz alta, con palabras sencillas, sin código, listas ni Markdown.",
        "fr":
            "Tu es un assistant vocal serviable. Réponds toujours en français, en une ou deux phrases courtes à dire à voix haute, avec des mots simples, sans code, listes ni Markdown.",
        "de":
            "Du bist ein hilfsbereiter Sprachassistent. Antworte immer auf Deutsch, in ein oder zwei kurzen gesprochenen Sätzen, mit einfachen Worten, ohne Code, Listen oder Markdown.",
    ]

    /// The language's English name ("Italian"), or the code when it is not known.
    public static func englishName(_ code: String) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code) ?? code
    }

    /// espeak-ng's voice for `code`: its own voice of that name (espeak-ng names its voices
    /// by ISO 639-1 code: `it`, `es`, `fr-fr`, `de`), English as US English.
    public static func espeakVoice(_ code: String) -> String {
        espeakVoices[code] ?? code
    }

    /// Codes whose espeak-ng voice has another name.
    static let espeakVoices: [String: String] = [
        "en": "en-us", "fr": "fr-fr", "pt": "pt-br", "zh": "cmn", "yue": "yue", "no": "nb", "jw": "jv", "haw": "haw",
    ]

    /// `date` as the language says it, with the weekday, day, month and year, and the time
    /// ("venerdì 4 dicembre 2026, 14:05"), in `timeZone`.
    public static func spokenDateTime(_ date: Date, language: String, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        formatter.setLocalizedDateFormatFromTemplate("EEEEdMMMMyyyyHHmm")
        return formatter.string(from: date)
    }
}
