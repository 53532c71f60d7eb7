import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// The multilingual Whisper (base) on synthetic speech: espeak-ng's voices for Italian,
/// Spanish, French and German (synthetic, not recorded: a robotic voice that no person has).
@Suite("multilingual whisper.cpp on synthetic espeak-ng speech", .serialized, .onDeviceEngines)
struct MultilingualSpeechTests {
    static let stt = WhisperSpeechToText(
        modelPath: TestEnvironment.paths.defaultWhisperModel.path,
        multilingualModelPath: TestEnvironment.paths.multilingualWhisperModel.path,
        detectable: LanguageSetting.detectable, threads: 2)

    func whisper() throws -> WhisperSpeechToText {
        _ = try TestEnvironment.require(TestEnvironment.paths.multilingualWhisperModel)
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultWhisperModel)
        return Self.stt
    }

    /// Sentences of 4–6 s: on 2 s questions espeak-ng's Italian and French were taken for
    /// English and Spanish (the detection hears the voice as much as the words).
    static let spoken: [(language: String, text: String)] = [
        ("it", "Buongiorno, vorrei sapere che tempo farà domani a Roma, perché devo andare al mare con i miei amici."),
        ("es", "Buenos días, quisiera saber qué tiempo hará mañana en Madrid, porque tengo que ir a la playa con mis amigos."),
        ("fr", "Bonjour, je voudrais savoir quel temps il fera demain à Paris, parce que je dois aller à la plage avec mes amis."),
        ("de", "Guten Morgen, ich möchte wissen, wie das Wetter morgen in Berlin wird, weil ich mit meinen Freunden an den Strand gehe."),
    ]

    /// The share of the words of `said` that are among the words of `heard`.
    static func overlap(_ heard: String, _ said: String) -> Double {
        let heardWords = Set(TestEnvironment.words(heard)), saidWords = TestEnvironment.words(said)
        return Double(saidWords.filter(heardWords.contains).count) / Double(max(1, saidWords.count))
    }

    static func speech(_ text: String, language: String) async throws -> AudioBuffer {
        try await EspeakTextToSpeech(defaultVoice: LocalizedPhrases.espeakVoice(language)).synthesizeAll(text)
    }

    @Test("on auto the spoken language is detected and reported, and the words are written in it", arguments: 0..<4)
    func detection(index: Int) async throws {
        let stt = try whisper()
        let case_ = Self.spoken[index]
        let audio = try await Self.speech(case_.text, language: case_.language)
        let transcript = try await stt.transcribe(audio, options: TranscriptionOptions(language: nil))
        #expect(transcript.language == case_.language, "heard as \(transcript.language ?? "nothing"): \(transcript.text)")
        #expect(transcript.provider?.model == "base")
        // Whisper base hears espeak-ng's robotic voices poorly (Benchmarks/README.md: WER per
        // language on this synthetic set): most words, not all, come back.
        #expect(Self.overlap(transcript.text, case_.text) >= 0.5, "transcript: \(transcript.text)")
    }

    @Test("a language asked for is transcribed in it; English still goes to tiny.en")
    func askedFor() async throws {
        let stt = try whisper()
        let italian = try await stt.transcribe(
            try await Self.speech("Qual è la capitale della Francia?", language: "it"),
            options: TranscriptionOptions(language: "it"))
        #expect(italian.language == "it")
        #expect(TestEnvironment.words(italian.text).contains { $0.hasPrefix("capit") }, "transcript: \(italian.text)")
        let english = try await stt.transcribe(
            try await Self.speech("What is the capital of France?", language: "en"),
            options: TranscriptionOptions(language: "en"))
        #expect(english.language == "en" && english.provider == nil)
        #expect(TestEnvironment.words(english.text).contains("france"), "transcript: \(english.text)")
        await #expect(throws: ProviderError.self) {
            try await stt.transcribe(try await Self.speech("Ciao.", language: "it"), options: TranscriptionOptions(language: "klingon"))
        }
    }

    @Test("a mixed reply is spoken by the neural voice in English and espeak-ng's Italian voice in Italian, and heard back so")
    func voicesPerSentence() async throws {
        let stt = try whisper()
        let neural = PiperTextToSpeech(folder: TestEnvironment.paths.models, cache: TestEnvironment.paths.voiceCache, threads: 2)
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultVoiceModel)
        let voices = SentenceLanguageVoices(primary: neural, other: EspeakTextToSpeech(), fallback: "it")
        var chunks: [SpokenChunk] = []
        for try await chunk in voices.synthesizeAttributed("La capitale della Francia è Parigi. The capital of France is Paris.", options: SpeechOptions()) {
            chunks.append(chunk)
        }
        #expect(chunks.first?.provider.name == "espeak-ng")
        #expect(chunks.last?.provider.name == neural.identity.name)
        var italian = try #require(chunks.first).audio
        for chunk in chunks.dropFirst() where chunk.provider.name == "espeak-ng" { italian.appendConverting(chunk.audio) }
        let heard = try await stt.transcribe(italian, options: TranscriptionOptions(language: nil))
        #expect(heard.language == "it", "heard as \(heard.language ?? "nothing"): \(heard.text)")
        #expect(TestEnvironment.words(heard.text).contains { $0.hasPrefix("capit") }, "transcript: \(heard.text)")
    }
}
