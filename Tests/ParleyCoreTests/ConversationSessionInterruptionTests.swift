import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("The conversation session: speech over a reply", .timeLimit(.minutes(1)))
struct ConversationSessionInterruptionTests {
    struct Outcome {
        var turns: [TurnResult]
        var states: [ConversationState]
        var entries: [JournalEntry]
        var requests: [ChatRequest]
        var transcriptions: Int
        var pauses: Int
        var resumes: Int
    }

    /// Asks "Tell me a story." and, while the reply plays, says `over` (transcribed as `heard`).
    func speakOverReply(_ over: [Float], heard: String) async throws -> Outcome {
        let stt = ScriptedSpeechToText(transcripts: ["Tell me a story.", heard])
        let llm = ScriptedLanguageModel(replies: [["First sentence here.", " Second sentence is longer.", " Third."], ["Okay."]])
        let journal = RecordingJournal()
        let output = PausingOutput(heardOnStop: 0.2)
        let session = makeSession(stt: stt, llm: llm, output: output, journal: journal) {
            $0.duplex = .full
            $0.rules.interruption = InterruptionRules(language: "en")
        }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let states = Task {
            var seen: [ConversationState] = []
            for await update in updates {
                guard case .transition(_, let to) = update else { continue }
                seen.append(to)
                if to == .speaking && !seen.dropLast().contains(.speaking) {
                    await output.waitUntilHolding()
                    for frame in TestAudio.frames(over + TestAudio.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
                if to == .idle { break }
            }
            return seen
        }
        for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { feed.yield(frame) }
        let turns = try await session.run(input)
        return Outcome(
            turns: turns, states: await states.value, entries: await journal.entries, requests: await llm.requests,
            transcriptions: await stt.received.count, pauses: await output.pauses, resumes: await output.resumes)
    }

    @Test("a backchannel pauses the reply, which then resumes; nothing of it is a turn")
    func backchannelResumes() async throws {
        let outcome = try await speakOverReply(TestAudio.speech(0.7), heard: "Mm-hmm.")
        #expect(outcome.states == [.armed, .listening, .thinking, .speaking, .paused, .speaking, .listening, .idle])
        #expect(outcome.pauses == 1)
        #expect(outcome.resumes == 1)
        #expect(outcome.transcriptions == 2)
        #expect(outcome.turns.count == 1)
        #expect(outcome.turns.first?.interrupted == false)
        #expect(outcome.turns.first?.reply == "First sentence here. Second sentence is longer. Third.")
        #expect(outcome.entries.map(\.role) == [.user, .assistant])
        #expect(outcome.requests.count == 1)
    }

    @Test("a cough too short to be meant resumes the reply without being transcribed")
    func shortNoiseResumes() async throws {
        let outcome = try await speakOverReply(TestAudio.speech(0.3), heard: "Stop.")
        #expect(outcome.states == [.armed, .listening, .thinking, .speaking, .paused, .speaking, .listening, .idle])
        #expect(outcome.transcriptions == 1)
        #expect(outcome.turns.count == 1)
        #expect(outcome.entries.map(\.role) == [.user, .assistant])
    }

    @Test("long words that are meant cut the reply (what was heard is saved) and are answered")
    func meantWordsCut() async throws {
        let outcome = try await speakOverReply(TestAudio.speech(1.5), heard: "Stop, wait, tell me something else.")
        #expect(outcome.states == [.armed, .listening, .thinking, .speaking, .paused, .thinking, .speaking, .listening, .idle])
        #expect(outcome.resumes == 0)
        #expect(outcome.turns.count == 2)
        #expect(outcome.turns.first?.interrupted == true)
        #expect(outcome.turns.first?.reply == "First sentence here.")
        #expect(outcome.turns.last?.transcript == "Stop, wait, tell me something else.")
        #expect(outcome.turns.last?.reply == "Okay.")
        #expect(outcome.entries.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(outcome.requests.count == 2)
    }
}
