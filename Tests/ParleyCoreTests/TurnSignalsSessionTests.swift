import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// An audio turn scorer that gives every pause the same score and counts the pauses.
actor FixedAudioScorer: AudioTurnScorer {
    let score: Double
    private(set) var scored = 0

    init(_ score: Double) { self.score = score }

    func completion(of speech: AudioBuffer) async throws -> Double {
        scored += 1
        return score
    }
}

@Suite("A conversation judging pauses by the voice, then the words", .timeLimit(.minutes(1)))
struct TurnSignalsSessionTests {
    static let question = StretchTranscriber.Stretch(amplitude: 0.3, words: "What is the capital of France?")

    /// Plays the question, then a pause long enough for the long silence, and returns the turn
    /// with what the scorers were asked. The pause is fed in steps that wait for the scores
    /// (and, when `endsAtShortSilence`, for the turn to end: ``turnEnded(in:)``).
    func converse(
        voice: Double, words: Double, endsAtShortSilence: Bool
    ) async throws -> (
        turn: TurnResult?, voiceScores: Int, wordsScored: [String]
    ) {
        let stt = StretchTranscriber([Self.question])
        let llm = ScriptedLanguageModel(replies: [["Paris."]])
        let predictor = FixedTurnPredictor([Self.question.words: words])
        let audio = FixedAudioScorer(voice)
        let session = makeSession(stt: stt, llm: llm, clock: ManualClock()) {
            $0.segmentation.endSilence = 1.2
            $0.turnPrediction = TurnPrediction(
                predictor: predictor, audio: audio, bands: TurnEndDetector.Bands(complete: 0.8, incomplete: 0.2),
                policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2))
        }
        let input = FrameFeed()
        let ended = await turnEnded(in: session)
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.silence(0.3) + Self.question.audio(1.5) + TestAudio.silence(0.3))
        await eventually { await audio.scored == 1 }
        // An unsure voice has the words read.
        if voice > 0.2, voice < 0.8 { await eventually { await predictor.scored.count == 1 } }
        if endsAtShortSilence {
            input.feed(TestAudio.silence(0.2))
            await ended.value
        }
        input.feed(TestAudio.silence(1.5))
        input.finish()
        let turns = try await run.value
        await session.close()
        #expect(turns.map(\.transcript) == [Self.question.words])
        return (turns.first, await audio.scored, await predictor.scored)
    }

    @Test("a voice that sounds finished ends the turn at the short silence; the words are not scored")
    func voiceFinished() async throws {
        let (turn, voiceScores, wordsScored) = try await converse(voice: 0.95, words: 0, endsAtShortSilence: true)
        #expect(voiceScores == 1)
        #expect(wordsScored.isEmpty)
        let reason = try #require(turn?.endOfTurn)
        #expect(reason.hasPrefix("the voice sounds finished (95% complete) after 0."), "\(reason)")
    }

    @Test("a voice that stopped short waits for the long silence, whatever the words")
    func voiceStoppedShort() async throws {
        let (turn, _, wordsScored) = try await converse(voice: 0.05, words: 0.9, endsAtShortSilence: false)
        #expect(wordsScored.isEmpty)
        #expect(turn?.endOfTurn == nil, "ended by the long silence, not by a prediction")
    }

    @Test("an unsure voice has the words scored, and whole words end the turn at the short silence")
    func unsureVoice() async throws {
        let (turn, _, wordsScored) = try await converse(voice: 0.5, words: 0.9, endsAtShortSilence: true)
        #expect(wordsScored == [Self.question.words])
        #expect(turn?.endOfTurn?.hasPrefix("the words sound complete (90% complete)") == true, "\(turn?.endOfTurn ?? "nil")")
    }
}
