import Foundation
import ParleyCore
import ParleySilero
import ParleyTestLanes
import ParleyTesting
import Testing
@testable import ParleyLocal

/// Speech over a reply, on real audio: Silero hears it, whisper.cpp transcribes it, and the
/// conversation tells a backchannel from an interruption that is meant. The user's speech is
/// espeak-ng's; the reply is a scripted one, still playing when the user speaks.
@Suite("Speech over a reply, on real audio", .serialized, .onDeviceEngines)
struct InterruptionRealAudioTests {
    static let stt = WhisperSpeechToText(modelPath: TestEnvironment.paths.defaultWhisperModel.path, threads: 2)
    let voice = EspeakTextToSpeech()

    actor Journal: ConversationJournal {
        private(set) var entries: [JournalEntry] = []
        func record(_ entry: JournalEntry) { entries.append(entry) }
    }

    struct Outcome {
        var turns: [TurnResult]
        var states: [ConversationState]
        var heard: [String]
        var entries: [JournalEntry]
        var resumes: Int
    }

    /// `text` spoken by espeak-ng at 16 kHz, then `silence` seconds of silence.
    func spoken(_ text: String, silence: Double = 1.5) async throws -> [Float] {
        try await voice.synthesizeAll(text).resampled(to: 16_000).samples + [Float](repeating: 0, count: Int(silence * 16_000))
    }

    /// Asks a question and, once the reply is playing, says `over` over it.
    func speakOverReply(_ over: String) async throws -> Outcome {
        let vad = SileroVoiceActivityDetector(weightsPath: try TestEnvironment.require(TestEnvironment.paths.sileroWeights).path)
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultWhisperModel)
        let llm = ScriptedLanguageModel(replies: [
            ["The largest ocean on Earth is the Pacific.", " It covers about a third of the planet."],
            ["Sure, here is something else."],
        ])
        let output = PausingOutput(heardOnStop: 0.4)
        let journal = Journal()
        var configuration = ConversationConfiguration(duplex: .full)
        configuration.rules.interruption = InterruptionRules(language: "en")
        let session = ConversationSession(
            vad: vad, stt: Self.stt, llm: llm, tts: ToneTextToSpeech(), output: output, journal: journal,
            configuration: configuration)
        let question = try await spoken("What is the largest ocean on Earth?")
        let interjection = try await spoken(over)
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let watcher = Task {
            var states: [ConversationState] = [], heard: [String] = []
            for await update in updates {
                switch update {
                case .finalTranscript(let text): heard.append(text)
                case .transition(_, let to):
                    states.append(to)
                    if to == .speaking && !states.dropLast().contains(.speaking) {
                        await output.waitUntilHolding()
                        for frame in Self.frames(interjection) { feed.yield(frame) }
                        feed.finish()
                    }
                    if to == .idle { return (states, heard) }
                default: break
                }
            }
            return (states, heard)
        }
        for frame in Self.frames(question) { feed.yield(frame) }
        let turns = try await session.run(input)
        let (states, heard) = await watcher.value
        await session.close()
        return Outcome(turns: turns, states: states, heard: heard, entries: await journal.entries, resumes: await output.resumes)
    }

    static func frames(_ samples: [Float]) -> [AudioBuffer] {
        stride(from: 0, to: samples.count, by: 1_600).map { AudioBuffer(samples: Array(samples[$0..<min(samples.count, $0 + 1_600)]), sampleRate: 16_000) }
    }

    @Test("a spoken backchannel over the reply resumes it, and no user turn is stored", arguments: ["Mm-hmm.", "Okay.", "Yeah."])
    func backchannelResumes(_ said: String) async throws {
        let outcome = try await speakOverReply(said)
        #expect(outcome.states.contains(.paused), "states: \(outcome.states)")
        #expect(outcome.resumes == 1, "heard: \(outcome.heard)")
        #expect(outcome.turns.count == 1, "heard: \(outcome.heard)")
        #expect(outcome.turns.first?.interrupted == false)
        #expect(outcome.entries.map(\.role) == [.user, .assistant], "heard: \(outcome.heard)")
    }

    @Test("\"Stop, wait, tell me something else\" over the reply cuts it, and is answered")
    func meantInterruptionCuts() async throws {
        let outcome = try await speakOverReply("Stop. Wait. Tell me something else.")
        #expect(outcome.states.contains(.paused), "states: \(outcome.states)")
        #expect(outcome.resumes == 0)
        #expect(outcome.turns.count == 2, "heard: \(outcome.heard)")
        #expect(outcome.turns.first?.interrupted == true)
        #expect(outcome.turns.last?.transcript.lowercased().contains("something else") == true, "heard: \(outcome.heard)")
        #expect(outcome.turns.last?.reply == "Sure, here is something else.")
        #expect(outcome.entries.map(\.role) == [.user, .assistant, .user, .assistant])
    }
}
