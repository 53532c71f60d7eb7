import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("The voice turn pipeline (with test doubles)")
struct VoicePipelineTests {
    func utterance(seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 150 * Double($0) / 16_000)) }
    }

    func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 16_000)) }

    @Test("two questions separated by a pause make two turns with history carried over")
    func twoTurns() async throws {
        let audio = AudioBuffer(samples: silence(0.3) + utterance(seconds: 1) + silence(2) + utterance(seconds: 1) + silence(1.5), sampleRate: 16_000)
        let stt = ScriptedSpeechToText(transcripts: ["What is the capital of France?", "And of Italy?"])
        let llm = ScriptedLanguageModel(replies: [["The capital", " is Paris. It is", " lovely."], ["Rome."]])
        let tts = ToneTextToSpeech()
        let pipeline = VoicePipeline(vad: EnergyVoiceActivityDetector(), stt: stt, llm: llm, tts: tts)
        let turns = try await pipeline.run(audio)

        #expect(turns.map(\.transcript) == ["What is the capital of France?", "And of Italy?"])
        #expect(turns.map(\.reply) == ["The capital is Paris. It is lovely.", "Rome."])
        // Each sentence was spoken on its own, in order.
        #expect(await tts.spoken == ["The capital is Paris.", "It is lovely.", "Rome."])
        // The second request carries the first exchange.
        let requests = await llm.requests
        #expect(requests.count == 2)
        #expect(requests[1].messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(requests[1].messages[2].text == "The capital is Paris. It is lovely.")
        // The transcriber got only the speech of each turn, not the whole file.
        let heard = await stt.received
        #expect(heard.count == 2)
        #expect(heard.allSatisfy { $0.duration < 1.6 })
        #expect(turns[0].providers.llm == "scripted")
        #expect(turns[0].replyAudio.duration > 0)
    }

    @Test("the first audio is ready before the model has finished writing")
    func streamingSpeaksEarly() async throws {
        let llm = ScriptedLanguageModel(replies: [["First sentence.", " Second", " part", " of", " the", " answer."]], pieceDelay: .milliseconds(30))
        let pipeline = VoicePipeline(vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: llm, tts: ToneTextToSpeech())
        let turn = try await pipeline.answer(history: [.system("s"), .user("hi")])
        #expect(turn.timings.firstAudio < turn.timings.llmTotal)
    }

    @Test("silent audio is reported as no speech")
    func silentAudio() async {
        let pipeline = VoicePipeline(vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["x"]),
                                     llm: ScriptedLanguageModel(replies: [["y"]]), tts: ToneTextToSpeech())
        await #expect(throws: VoicePipeline.Failure.noSpeech(duration: 2)) {
            try await pipeline.run(AudioBuffer(samples: silence(2), sampleRate: 16_000))
        }
    }

    @Test("speech with no recognisable words is reported, not answered")
    func nothingTranscribed() async {
        let llm = ScriptedLanguageModel(replies: [["y"]])
        let pipeline = VoicePipeline(vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["[BLANK_AUDIO]"]),
                                     llm: llm, tts: ToneTextToSpeech())
        await #expect(throws: VoicePipeline.Failure.nothingTranscribed) {
            try await pipeline.run(AudioBuffer(samples: silence(0.5) + utterance(seconds: 1) + silence(1), sampleRate: 16_000))
        }
        #expect(await llm.requests.isEmpty)
    }

    @Test("an empty reply is an error naming the model")
    func emptyReply() async {
        let pipeline = VoicePipeline(vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["hi"]),
                                     llm: ScriptedLanguageModel(name: "quiet", replies: [[]]), tts: ToneTextToSpeech())
        await #expect(throws: ProviderError.self) {
            try await pipeline.answer(history: [.user("hi")])
        }
    }
}
