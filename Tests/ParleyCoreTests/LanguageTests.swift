import Foundation
import ParleyCore
import ParleyTesting
import Testing

@Suite("languages: the setting, the sentence identifier, voices per sentence, localized words")
struct LanguageTests {
    @Test("the setting reads auto and codes (any case, with a region) and refuses what Whisper does not know")
    func setting() throws {
        #expect(try LanguageSetting(parsing: "auto") == .auto)
        #expect(try LanguageSetting(parsing: " IT ") == .code("it"))
        #expect(try LanguageSetting(parsing: "es-MX") == .code("es"))
        #expect(try LanguageSetting(parsing: "de_DE") == .code("de"))
        #expect(try LanguageSetting(parsing: "en").isEnglish)
        #expect(LanguageSetting.auto.transcriptionLanguage == nil)
        for bad in ["", "xx", "english", "it-", "it-ITALIA", "e"] {
            #expect(throws: LanguageSetting.Invalid.self, "\(bad)") { try LanguageSetting(parsing: bad) }
        }
    }

    @Test(
        "each sentence's language is told from its words",
        arguments: [
            ("What is the capital of France?", "en"),
            ("The weather is nice today, and I am going for a walk.", "en"),
            ("Qual è la capitale della Francia?", "it"),
            ("La capitale della Francia è Parigi.", "it"),
            ("Oggi fa bel tempo e vado a fare una passeggiata.", "it"),
            ("¿Cuál es la capital de Francia?", "es"),
            ("La capital de Francia es París.", "es"),
            ("Hoy hace buen tiempo y voy a dar un paseo.", "es"),
            ("Quelle est la capitale de la France ?", "fr"),
            ("La capitale de la France est Paris.", "fr"),
            ("Aujourd'hui il fait beau et je vais me promener.", "fr"),
            ("Was ist die Hauptstadt von Frankreich?", "de"),
            ("Die Hauptstadt von Frankreich ist Paris.", "de"),
            ("Heute ist das Wetter schön und ich gehe spazieren.", "de"),
        ])
    func identifier(sentence: String, language: String) {
        #expect(TextLanguageIdentifier().language(of: sentence, fallback: "xx") == language)
    }

    @Test("words that do not tell (a name, a number) are in the conversation's language")
    func fallback() {
        let identifier = TextLanguageIdentifier()
        #expect(identifier.language(of: "Parigi.", fallback: "it") == "it")
        #expect(identifier.language(of: "42!", fallback: "de") == "de")
    }

    @Test("a reply mixing languages is spoken sentence by sentence: English by the first voice, the others by espeak-ng's voice for them")
    func voicePerSentence() async throws {
        let english = ToneTextToSpeech(), other = ToneTextToSpeech()
        let voices = SentenceLanguageVoices(primary: english, other: other, fallback: "it")
        let reply = "La capitale della Francia è Parigi. In English, the capital of France is Paris. ¿Y en español? La capital de Francia es París."
        let choices = voices.choices(for: reply, options: SpeechOptions(voice: "joe"))
        #expect(choices.map(\.language) == ["it", "en", "es", "es"])
        #expect(choices.map(\.isPrimary) == [false, true, false, false])
        #expect(choices.map(\.voice) == ["it", "joe", "es", "es"])
        var chunks = 0
        for try await _ in voices.synthesizeAttributed(reply, options: SpeechOptions(voice: "joe")) { chunks += 1 }
        #expect(chunks >= 4)
        #expect(await english.spoken == ["In English, the capital of France is Paris."])
        #expect(await other.spoken == ["La capitale della Francia è Parigi.", "¿Y en español?", "La capital de Francia es París."])
    }

    @Test("espeak-ng's voices are named by code, French and English by their variants")
    func espeakVoices() {
        #expect(LocalizedPhrases.espeakVoice("it") == "it")
        #expect(LocalizedPhrases.espeakVoice("fr") == "fr-fr")
        #expect(LocalizedPhrases.espeakVoice("en") == "en-us")
    }

    @Test("the voice prompt is written in the language it asks for; another language is named in English; auto asks for the user's")
    func prompts() {
        #expect(LocalizedPhrases.voicePrompt(.code("it")).contains("italiano"))
        #expect(LocalizedPhrases.voicePrompt(.code("es")).contains("español"))
        #expect(LocalizedPhrases.voicePrompt(.code("fr")).contains("français"))
        #expect(LocalizedPhrases.voicePrompt(.code("de")).contains("Deutsch"))
        #expect(LocalizedPhrases.voicePrompt(.code("pt")).contains("Portuguese"))
        #expect(LocalizedPhrases.voicePrompt(.auto).contains("language the user speaks"))
        for code in ["it", "es", "fr", "de"] {
            #expect(TextLanguageIdentifier().language(of: LocalizedPhrases.voicePrompt(.code(code)), fallback: "xx") == code)
        }
    }

    @Test("dates are said in the language")
    func dates() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Rome"))
        let date = Date(timeIntervalSince1970: 1_796_392_800)  // 2026-12-04 15:00 in Rome
        #expect(LocalizedPhrases.spokenDateTime(date, language: "it", timeZone: zone).contains("dicembre"))
        #expect(LocalizedPhrases.spokenDateTime(date, language: "es", timeZone: zone).contains("diciembre"))
        #expect(LocalizedPhrases.spokenDateTime(date, language: "fr", timeZone: zone).contains("décembre"))
        #expect(LocalizedPhrases.spokenDateTime(date, language: "de", timeZone: zone).contains("Dezember"))
    }

    @Test("Italian backchannels never cut a reply; a real Italian question does")
    func italianBackchannels() {
        let lists = Backchannels()
        #expect(lists.contains("Sì, sì, certo.", language: "it"))
        #expect(lists.contains("Ho capito, va bene.", language: "it-IT"))
        #expect(!lists.contains("Aspetta, qual è la capitale?", language: "it"))
    }
}
