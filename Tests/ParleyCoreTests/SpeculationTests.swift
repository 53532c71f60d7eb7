import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// Scores every utterance as complete, or as `scores[text]` when given, and counts the calls;
/// with `threshold`, a predictor that knows its own.
actor FixedTurnPredictor: TurnPredictor {
    private let scores: [String: Double]
    private let threshold: Double?
    private(set) var scored: [String] = []

    init(_ scores: [String: Double] = [:], threshold: Double? = nil) {
        self.scores = scores
        self.threshold = threshold
    }

    func completionThreshold() async -> Double? { threshold }

    private func record(_ utterance: String) -> Double {
        scored.append(utterance)
        return scores[utterance] ?? 0.9
    }

    nonisolated func completion(of utterance: String, after history: [ChatMessage], tools: [ToolDefinition]) async throws -> Double {
        await record(utterance)
    }
}

/// Frames the test hands to a session one at a time, so that it can wait for the session to
/// act on a pause before the user goes on.
final class FrameFeed: Sendable {
    let stream: AsyncStream<AudioBuffer>
    private let sink: AsyncStream<AudioBuffer>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: AudioBuffer.self)
    }

    func feed(_ samples: [Float]) {
        for frame in TestAudio.frames(samples) { sink.yield(frame) }
    }

    func finish() { sink.finish() }
}

/// A task that ends when `session` reports a final transcript, that is when a turn has ended.
/// Frames fed at once are not 32 ms apart as a microphone's are, so a test that wants a pause's
/// score to end the turn feeds the pause in steps and waits for this before the long silence.
func turnEnded(in session: TestSession) async -> Task<Void, Never> {
    let updates = await session.updates()
    return Task {
        for await update in updates { if case .finalTranscript = update { return } }
    }
}

@Suite("Replies started during a pause (speculation), with test doubles on a manual clock", .timeLimit(.minutes(1)))
struct SpeculationTests {
    /// A session with end-of-turn prediction (complete words end the turn after 0.4 s of
    /// silence, any after 1.2 s) and speculation.
    func makeSpeculatingSession(
        stt: ScriptedSpeechToText, llm: ScriptedLanguageModel, tts: ToneTextToSpeech, output: any AudioOutput,
        journal: RecordingJournal, predictor: FixedTurnPredictor, clock: ManualClock,
        speculates: Bool = true
    ) -> TestSession {
        makeSession(stt: stt, llm: llm, tts: tts, output: output, journal: journal, clock: clock) {
            $0.duplex = .full
            $0.segmentation.endSilence = 1.2
            $0.turnPrediction = TurnPrediction(
                predictor: predictor, policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2),
                speculates: speculates)
        }
    }

    @Test("a user who goes on after a reply was started never hears it, and only the final turn is kept")
    func discardedWhenTheUserGoesOn() async throws {
        let clock = ManualClock()
        // Each pause is transcribed once to score it: first the words before the pause, then
        // the whole question.
        let stt = ScriptedSpeechToText(transcripts: ["Can you tell me", "Can you tell me what the largest planet is?"])
        let llm = ScriptedLanguageModel(replies: [["Tell you what?", " I am not sure."], ["Jupiter is the largest planet."]])
        let tts = ToneTextToSpeech()
        let output = RecordingOutput(clock: clock, realtime: false)
        let journal = RecordingJournal()
        let predictor = FixedTurnPredictor()
        let session = makeSpeculatingSession(stt: stt, llm: llm, tts: tts, output: output, journal: journal, predictor: predictor, clock: clock)
        let updates = collect(await session.updates())
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }

        // A pause of 0.3 s: long enough to be scored and answered, too short to end the turn.
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        // The reply to "Can you tell me" is written and synthesized in full, and held.
        await eventually { await tts.spoken == ["Tell you what?", "I am not sure."] }
        #expect(await llm.requests.last?.messages.last?.text == "Can you tell me")
        // The user goes on, then pauses again: the question is answered in its turn.
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await tts.spoken.count == 3 }
        input.feed(TestAudio.silence(1.5))
        input.finish()
        let turns = try await run.value
        await session.close()
        let seen = await updates.value

        #expect(turns.map(\.transcript) == ["Can you tell me what the largest planet is?"])
        #expect(turns.map(\.reply) == ["Jupiter is the largest planet."])
        #expect(turns.first?.startedEarly == true)
        // Both replies were made; only the second was heard, shown or kept.
        #expect(await llm.requests.map { $0.messages.last?.text } == ["Can you tell me", "Can you tell me what the largest planet is?"])
        #expect(await tts.spoken == ["Tell you what?", "I am not sure.", "Jupiter is the largest planet."])
        let heard = try #require(await output.heardAudio)
        let secondReply = try await ToneTextToSpeech().synthesize("Jupiter is the largest planet.", options: SpeechOptions()).reduce(0.0) { $0 + $1.duration }
        #expect(abs(heard.duration - secondReply) < 0.001)
        let shown = seen.compactMap { if case .replyText(let piece) = $0 { piece } else { nil } }
        #expect(shown == ["Jupiter is the largest planet."])
        #expect(seen.states.filter { $0 == .speaking }.count == 1)
        let entries = await journal.entries
        #expect(entries.map(\.role) == [.user, .assistant])
        #expect(entries.map(\.text) == ["Can you tell me what the largest planet is?", "Jupiter is the largest planet."])
        // The turn's transcript was the one made to score the last pause: no third transcription.
        #expect(await stt.received.count == 2)
    }

    @Test("the reply started during a pause is stopped as soon as the user speaks again, not at the next pause")
    func stoppedWhenSpeechResumes() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["Can you tell me"])
        // A model that writes its first piece only when the clock moves, which it does not here.
        let llm = PacedLanguageModel(pieces: ["Tell you what?"], pause: .seconds(3_600), clock: clock)
        let session = makeSession(
            stt: stt, llm: llm, tts: ToneTextToSpeech(), output: RecordingOutput(clock: clock, realtime: false),
            clock: clock
        ) {
            $0.duplex = .full
            $0.turnPrediction = TurnPrediction(
                predictor: FixedTurnPredictor(), policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2),
                speculates: true)
        }
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await clock.waitForSleepers(1)
        // The user goes on: a frame of speech is enough to stop the reply being written.
        input.feed(TestAudio.speech(0.2))
        await eventually { clock.sleepers == 0 }
        // The user stops; the model writes when the clock moves.
        input.feed(TestAudio.silence(1.5))
        input.finish()
        let advancing = Task {
            while !Task.isCancelled {
                if clock.sleepers > 0 { clock.advance(by: .seconds(3_600)) }
                await Task.yield()
            }
        }
        let turns = try await run.value
        advancing.cancel()
        await session.close()
        #expect(turns.map(\.reply) == ["Tell you what?"])
    }

    @Test("a reply started during the pause plays once the turn is confirmed, its latency counted from the endpoint")
    func adoptedWhenTheTurnEnds() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["What is the capital of France?"])
        let llm = ScriptedLanguageModel(replies: [["The capital", " is Paris."]])
        let tts = ToneTextToSpeech()
        let output = RecordingOutput(clock: clock, realtime: false)
        let journal = RecordingJournal()
        let session = makeSpeculatingSession(
            stt: stt, llm: llm, tts: tts, output: output, journal: journal,
            predictor: FixedTurnPredictor(), clock: clock)
        let updates = collect(await session.updates())
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await tts.spoken == ["The capital", "is Paris."] }
        // Written and spoken, but not yet heard: the turn is not over.
        #expect(await output.heardAudio == nil)
        #expect(await session.state == .listening)
        input.feed(TestAudio.silence(1.5))
        input.finish()
        let turn = try #require(try await run.value.first)
        await session.close()
        let seen = await updates.value

        #expect(turn.reply == "The capital is Paris.")
        #expect(turn.startedEarly)
        #expect(turn.endOfTurn?.contains("complete") == true)
        // One model call, one synthesis: the speculative reply was the reply.
        #expect(await llm.requests.count == 1)
        #expect(await tts.spoken == ["The capital", "is Paris."])
        #expect(try #require(await output.heardAudio).duration > 0.15)
        #expect(seen.compactMap { if case .replyText(let piece) = $0 { piece } else { nil } } == ["The capital", " is Paris."])
        // Nothing was heard before the endpoint, so the first audio is not before it.
        #expect(turn.latency.firstAudio >= 0)
        #expect(await journal.entries.map(\.text) == ["What is the capital of France?", "The capital is Paris."])
    }

    @Test("a predictor's own threshold decides: words above the policy's but below the model's neither end the turn early nor start a reply")
    func predictorThreshold() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["I would like to know"])
        let llm = ScriptedLanguageModel(replies: [["Know what?"]])
        let tts = ToneTextToSpeech()
        let output = RecordingOutput(clock: clock, realtime: false)
        // 0.01: whole for the policy (0.005), cut for this model (0.03).
        let predictor = FixedTurnPredictor(["I would like to know": 0.01], threshold: 0.03)
        let session = makeSpeculatingSession(
            stt: stt, llm: llm, tts: tts, output: output, journal: RecordingJournal(),
            predictor: predictor, clock: clock)
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }
        // Scored within 0.3 s of silence, and still listening 0.2 s past the short silence.
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.6))
        await eventually { await predictor.scored == ["I would like to know"] }
        await eventually { await stt.received.count == 1 }
        #expect(await session.state == .listening)
        #expect(await llm.requests.isEmpty)
        input.feed(TestAudio.silence(1))
        input.finish()
        let turn = try #require(try await run.value.first)
        await session.close()
        // Ended by the 1.2 s silence, not by the prediction.
        #expect(turn.endOfTurn == nil)
        #expect(turn.latency.endpointSilence >= 1.2)
        #expect(!turn.startedEarly)
        #expect(turn.reply == "Know what?")
    }

    @Test("a reply started on words the user then corrects is dropped, and the corrected words are answered")
    func droppedWhenTheTranscriptIsCorrected() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["What is the capitol of France?"])
        let llm = ScriptedLanguageModel(replies: [["Capitol?"], ["Paris."]])
        let tts = ToneTextToSpeech()
        let output = RecordingOutput(clock: clock, realtime: false)
        let session = makeSession(stt: stt, llm: llm, tts: tts, output: output, clock: clock) {
            $0.duplex = .full
            $0.turnPrediction = TurnPrediction(
                predictor: FixedTurnPredictor(), policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2),
                speculates: true)
            $0.reviewTranscript = { _ in "What is the capital of France?" }
        }
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await tts.spoken == ["Capitol?"] }
        input.feed(TestAudio.silence(1.5))
        input.finish()
        let turn = try #require(try await run.value.first)
        #expect(turn.transcript == "What is the capital of France?")
        #expect(turn.reply == "Paris.")
        #expect(!turn.startedEarly)
        #expect(await llm.requests.map { $0.messages.last?.text } == ["What is the capitol of France?", "What is the capital of France?"])
        let heard = try #require(await output.heardAudio)
        #expect(abs(heard.duration - 0.06) < 0.001)  // "Paris." alone: 6 characters at 10 ms
    }

    @Test("without speculation the reply starts only when the turn ends")
    func offMeansAfterTheTurn() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["Can you tell me", "Can you tell me what the largest planet is?"])
        let llm = ScriptedLanguageModel(replies: [["Jupiter."]])
        let session = makeSpeculatingSession(
            stt: stt, llm: llm, tts: ToneTextToSpeech(), output: RecordingOutput(clock: clock, realtime: false),
            journal: RecordingJournal(), predictor: FixedTurnPredictor(), clock: clock, speculates: false)
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await stt.received.count == 1 }
        input.feed(TestAudio.speech(1) + TestAudio.silence(1.5))
        input.finish()
        let turns = try await run.value
        #expect(turns.map(\.reply) == ["Jupiter."])
        #expect(turns.first?.startedEarly == false)
        #expect(await llm.requests.map { $0.messages.last?.text } == ["Can you tell me what the largest planet is?"])
    }
}

/// A transcriber whose first call (a windowed partial, or a pause's transcription) runs until
/// it is cancelled, and records that (or, never cancelled, gives up after 10 s, so that a test
/// of code that fails to cancel it fails instead of hanging); every later call waits for the
/// first to end, as calls of an on-device engine take turns, then answers `transcript`.
actor FirstCallStalledSpeechToText: SpeechToTextProvider {
    nonisolated let identity = ProviderIdentity(name: "stalled-stt", isLocal: true)
    nonisolated let preferredSampleRate = 16_000
    private let transcript: String
    private(set) var calls = 0
    private(set) var firstCancelled = false
    private var firstRunning = false

    init(transcript: String) { self.transcript = transcript }

    nonisolated func availability() async -> Availability { .ready }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        calls += 1
        guard calls == 1 else {
            while firstRunning { try await Task.sleep(for: .milliseconds(5)) }
            return Transcript(text: transcript)
        }
        firstRunning = true
        defer { firstRunning = false }
        let deadline = ContinuousClock.now + .seconds(10)
        while !Task.isCancelled, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        firstCancelled = Task.isCancelled
        throw CancellationError()
    }
}

@Suite("A partial transcript overtaken by the pause's transcription", .timeLimit(.minutes(1)))
struct StalePartialTests {
    @Test("a windowed partial still under way when a pause is scored is cancelled; the turn is answered from the pause's transcript")
    func cancelledAtThePause() async throws {
        let stt = FirstCallStalledSpeechToText(transcript: "What is the capital of France?")
        let llm = ScriptedLanguageModel(replies: [["Paris."]])
        let session = makeSession(stt: stt, llm: llm) {
            $0.partialInterval = 0.5
            $0.segmentation.endSilence = 1.2
            $0.turnPrediction = TurnPrediction(predictor: FixedTurnPredictor(), policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2))
        }
        let input = FrameFeed()
        let ended = await turnEnded(in: session)
        let run = Task { try await session.run(input.stream) }
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await stt.calls >= 2 }  // the pause's transcription has begun
        input.feed(TestAudio.silence(0.2))  // past the short silence
        await ended.value
        input.feed(TestAudio.silence(1.0))
        input.finish()
        let turns = try await run.value
        #expect(await stt.firstCancelled)
        // Scored in the pause, so ended by the prediction (a partial left running would have
        // held the pause's transcription until the long silence ended the turn).
        #expect(turns.first?.endOfTurn?.contains("complete") == true, "\(turns.first?.endOfTurn ?? "no reason")")
        #expect(turns.map(\.transcript) == ["What is the capital of France?"])
        #expect(turns.map(\.reply) == ["Paris."])
    }
}

@Suite("A pause's transcription overtaken by more speech", .timeLimit(.minutes(1)))
struct StalePauseScoringTests {
    @Test("a pause still being transcribed when the user speaks again is let go; the next pause ends the turn")
    func cancelledWhenSpeechResumes() async throws {
        let stt = FirstCallStalledSpeechToText(transcript: "Can you tell me what the largest planet is?")
        let predictor = FixedTurnPredictor()
        let llm = ScriptedLanguageModel(replies: [["Jupiter."]])
        let session = makeSession(stt: stt, llm: llm) {
            $0.segmentation.endSilence = 1.2
            $0.turnPrediction = TurnPrediction(predictor: predictor, policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2))
        }
        let input = FrameFeed()
        let ended = await turnEnded(in: session)
        let run = Task { try await session.run(input.stream) }
        // A pause long enough to be scored; its transcription is still under way when the
        // user goes on.
        input.feed(TestAudio.speech(1) + TestAudio.silence(0.3))
        await eventually { await stt.calls == 1 }
        input.feed(TestAudio.speech(0.5))
        await eventually { await stt.firstCancelled }
        input.feed(TestAudio.silence(0.3))
        await eventually { await predictor.scored.count == 1 }
        input.feed(TestAudio.silence(0.2))  // past the short silence
        await ended.value
        input.feed(TestAudio.silence(1.0))
        input.finish()
        let turns = try await run.value
        // The stale pause was never scored; the second was, and ended the turn.
        #expect(await predictor.scored == ["Can you tell me what the largest planet is?"])
        #expect(turns.first?.endOfTurn?.contains("complete") == true, "\(turns.first?.endOfTurn ?? "no reason")")
        #expect(turns.map(\.transcript) == ["Can you tell me what the largest planet is?"])
        #expect(turns.map(\.reply) == ["Jupiter."])
        #expect(await stt.calls == 2)
    }
}
