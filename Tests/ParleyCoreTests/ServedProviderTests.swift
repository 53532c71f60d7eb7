import Foundation
import ParleyTesting
import Testing
@testable import ParleyCore

@Suite("who served a turn")
struct ServedProviderTests {
    @Test("a turn and its saved messages name the STT and TTS providers that served, not the chain")
    func servedProviders() async throws {
        let clock = ManualClock()
        let stt = SpeechToTextChain(
            providers: [FlakyTranscriber(name: "cloud-stt", error: ServiceError(status: 503)), ScriptedSpeechToText(transcripts: ["Hello there."])],
            health: ProviderHealth(clock: clock))
        let voice = ToneTextToSpeech()
        let tts = TextToSpeechChain(providers: [BrokenMidSentence(), voice], health: ProviderHealth(clock: clock))
        let journal = RecordingJournal()
        let session = ConversationSession(
            vad: EnergyVoiceActivityDetector(), stt: stt, llm: ScriptedLanguageModel(replies: [["Hi. How are you?"]]), tts: tts,
            output: RecordingOutput(clock: clock, realtime: false), journal: journal,
            configuration: ConversationConfiguration(duplex: .half), clock: clock)
        let turns = try await session.run(TestAudio.stream(TestAudio.silence(0.3) + TestAudio.speech(1) + TestAudio.silence(1.5)))

        let turn = try #require(turns.first)
        #expect(turn.providers.stt == "scripted-stt")
        #expect(turn.providers.tts == voice.identity.description)
        #expect(turn.providers.llm == "scripted")
        let entries = await journal.entries
        #expect(entries.map(\.provider) == ["scripted-stt", "scripted"])
    }

    @Test("a chain names the provider in each transcript and spoken chunk; a single provider names itself")
    func attribution() async throws {
        let clock = ManualClock()
        let stt = SpeechToTextChain(
            providers: [FlakyTranscriber(name: "cloud-stt", error: ServiceError(status: 503)), FlakyTranscriber(name: "backup", text: "ok")],
            health: ProviderHealth(clock: clock))
        let transcript = try await stt.transcribe(AudioBuffer(samples: [0.1, 0.2], sampleRate: 16_000), options: .init())
        #expect(transcript.provider?.name == "backup")
        let voice = ToneTextToSpeech()
        var speakers: [String] = []
        for try await chunk in voice.synthesizeAttributed("One. Two.", options: .init()) { speakers.append(chunk.provider.description) }
        #expect(!speakers.isEmpty && speakers.allSatisfy { $0 == voice.identity.description })
    }
}
