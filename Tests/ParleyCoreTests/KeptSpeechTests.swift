import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// A transcriber that hears words only in the audio it is given: each stretch of speech is a
/// 150 Hz tone at its own level, and a run of a stretch's level in the audio is heard as that
/// stretch's words (twice if the stretch's audio is there twice). A stretch that is not
/// `recognisedAlone` gives no words when nothing else is heard with it (a fragment too short
/// or too unclear for the engine on its own).
actor StretchTranscriber: SpeechToTextProvider {
    struct Stretch: Sendable {
        var amplitude: Float
        var words: String
        var recognisedAlone = true

        /// `seconds` of this stretch's speech at 16 kHz.
        func audio(_ seconds: Double) -> [Float] {
            (0..<Int(seconds * 16_000)).map { amplitude * Float(sin(2 * Double.pi * 150 * Double($0) / 16_000)) }
        }
    }

    nonisolated let identity = ProviderIdentity(name: "stretch-stt", isLocal: true)
    nonisolated let preferredSampleRate = 16_000
    let stretches: [Stretch]
    /// What each call heard, in order.
    private(set) var heard: [String] = []

    init(_ stretches: [Stretch]) {
        self.stretches = stretches
    }

    nonisolated func availability() async -> Availability { .ready }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        let text = Self.words(in: audio.samples, stretches: stretches)
        heard.append(text)
        return Transcript(text: text)
    }

    /// The words of the stretches whose audio runs (at least 0.2 s) through `samples`.
    static func words(in samples: [Float], stretches: [Stretch]) -> String {
        // 640 samples: six whole periods of the tone, so a block of it has the tone's exact level.
        let block = 640
        var runs: [(stretch: Int, blocks: Int)] = []
        for start in stride(from: 0, to: samples.count - block + 1, by: block) {
            let rms = sqrt(samples[start..<(start + block)].reduce(Float(0)) { $0 + $1 * $1 } / Float(block))
            let match = stretches.firstIndex { abs(rms - $0.amplitude / Float(2).squareRoot()) < 0.1 * $0.amplitude }
            guard let match else {
                if let last = runs.last, last.stretch >= 0 { runs.append((-1, 0)) }
                continue
            }
            if let last = runs.last, last.stretch == match {
                runs[runs.count - 1].blocks += 1
            } else {
                runs.append((match, 1))
            }
        }
        let heard = runs.filter { $0.stretch >= 0 && $0.blocks >= 5 }.map { stretches[$0.stretch] }
        guard heard.contains(where: \.recognisedAlone) else { return "" }
        return heard.map(\.words).joined(separator: " ")
    }
}

/// The states a session enters, as they happen.
actor StatesSeen {
    private(set) var states: [ConversationState] = []

    private func add(_ state: ConversationState) { states.append(state) }

    /// Follows `session` from now on.
    static func following(_ session: TestSession) async -> StatesSeen {
        let seen = StatesSeen()
        let updates = await session.updates()
        Task {
            for await update in updates {
                if case .transition(_, let to) = update { await seen.add(to) }
            }
        }
        return seen
    }
}

@Suite("Speech in which no words were recognised is kept for the words that follow", .timeLimit(.minutes(1)))
struct KeptSpeechTests {
    /// "Can you give me …" (which the engine does not recognise on its own), then "a word that
    /// rhymes with cat?".
    static let opening = StretchTranscriber.Stretch(amplitude: 0.1, words: "Can you give me", recognisedAlone: false)
    static let rest = StretchTranscriber.Stretch(amplitude: 0.4, words: "a word that rhymes with cat?")

    @Test("a first stretch transcribed as nothing keeps its audio: its words reach the final transcript after the pause")
    func emptyStretchJoinsTheNext() async throws {
        let stt = StretchTranscriber([Self.opening, Self.rest])
        let llm = ScriptedLanguageModel(replies: [["Hat."]])
        let session = makeSession(stt: stt, llm: llm)
        let updates = collect(await session.updates())
        // The 1.5 s pause is longer than the silence that ends a turn (1.2 s).
        let audio = TestAudio.silence(0.3) + Self.opening.audio(1) + TestAudio.silence(1.5) + Self.rest.audio(1.2) + TestAudio.silence(1.5)
        let turns = try await session.run(TestAudio.stream(audio))
        await session.close()
        let seen = await updates.value

        #expect(turns.map(\.transcript) == ["Can you give me a word that rhymes with cat?"])
        #expect(await llm.requests.map { $0.messages.last?.text } == ["Can you give me a word that rhymes with cat?"])
        // The pause ended a turn with nothing in it, and the conversation listened on.
        #expect(seen.states == [.armed, .listening, .thinking, .listening, .thinking, .speaking, .listening, .idle])
        // The turn's speech starts with the first stretch (0.3 s in, less the padding).
        let turn = try #require(turns.first)
        #expect(abs(turn.segment.startTime - 0.1) < 0.05, "speech from \(turn.segment.startTime) s")
        #expect(await stt.heard == ["", "Can you give me a word that rhymes with cat?"])
    }

    @Test("kept speech is let go when the next speech starts more than a few seconds later")
    func keptSpeechExpires() async throws {
        let stt = StretchTranscriber([Self.opening, Self.rest])
        let session = makeSession(stt: stt, llm: ScriptedLanguageModel(replies: [["Hat."]]))
        let audio = Self.opening.audio(1) + TestAudio.silence(6) + Self.rest.audio(1.2) + TestAudio.silence(1.5)
        let turns = try await session.run(TestAudio.stream(audio))
        await session.close()
        #expect(turns.map(\.transcript) == ["a word that rhymes with cat?"])
        #expect(abs((turns.first?.segment.startTime ?? 0) - 6.8) < 0.05)
    }

    @Test("at most 30 s of speech is kept, and only for an utterance that begins within the gap")
    func bounds() {
        var kept = KeptSpeech(sampleRate: 16_000, maxGap: 3)
        kept.keep(SpeechSegment(start: 0, end: 40 * 16_000, sampleRate: 16_000))
        #expect(kept.firstNeeded == 10 * 16_000)
        let joined = kept.begin(at: 42 * 16_000)
        #expect(joined == 10 * 16_000)
        #expect(kept.covering(SpeechSegment(start: 42 * 16_000, end: 44 * 16_000, sampleRate: 16_000)).start == 10 * 16_000)
        kept.keep(SpeechSegment(start: 0, end: 16_000, sampleRate: 16_000))
        let alone = kept.begin(at: 5 * 16_000)
        #expect(alone == 5 * 16_000)
        #expect(kept.firstNeeded == nil)
        kept.keep(SpeechSegment(start: 0, end: 16_000, sampleRate: 16_000))
        let early = kept.expire(at: 4 * 16_000), late = kept.expire(at: 4 * 16_000 + 1)
        #expect(!early && late)
        #expect(kept.firstNeeded == nil)
    }

    /// A session with end-of-turn prediction: words that sound whole end the turn after 0.4 s
    /// of silence, any after 1.2 s.
    func makePredictingSession(
        stt: StretchTranscriber, llm: ScriptedLanguageModel, predictor: FixedTurnPredictor,
        duplex: ConversationConfiguration.Duplex = .full
    ) -> TestSession {
        makeSession(stt: stt, llm: llm, clock: ManualClock()) {
            $0.duplex = duplex
            $0.segmentation.endSilence = 1.2
            $0.turnPrediction = TurnPrediction(predictor: predictor, policy: TurnPolicy(shortSilence: 0.4, longSilence: 1.2))
        }
    }

    @Test("with turn prediction, a pause that ends a turn with no words, then more speech, make one turn of both stretches")
    func predictedPauseThenMoreSpeech() async throws {
        let stt = StretchTranscriber([Self.opening, Self.rest])
        let llm = ScriptedLanguageModel(replies: [["Hat."]])
        let predictor = FixedTurnPredictor()
        let session = makePredictingSession(stt: stt, llm: llm, predictor: predictor)
        let seen = await StatesSeen.following(session)
        let input = FrameFeed()
        let ended = await turnEnded(in: session)  // a turn with words (the first has none)
        let run = Task { try await session.run(input.stream) }

        // The pause is scored (no words), then long enough to end the turn: thinking, and
        // nothing to answer.
        input.feed(TestAudio.silence(0.3) + Self.opening.audio(1) + TestAudio.silence(0.3))
        await eventually { await stt.heard.count == 1 }
        input.feed(TestAudio.silence(1.2))
        await eventually { await seen.states == [.armed, .listening, .thinking, .listening] }
        // The user goes on; the next pause is scored on the whole sentence and ends the turn.
        input.feed(Self.rest.audio(1.2) + TestAudio.silence(0.3))
        await eventually { await predictor.scored.contains("Can you give me a word that rhymes with cat?") }
        input.feed(TestAudio.silence(0.2))  // past the short silence
        await ended.value
        input.feed(TestAudio.silence(1.3))
        input.finish()
        let turns = try await run.value
        await session.close()

        #expect(turns.map(\.transcript) == ["Can you give me a word that rhymes with cat?"])
        #expect(await llm.requests.map { $0.messages.last?.text } == ["Can you give me a word that rhymes with cat?"])
        // Nothing was scored without the first stretch.
        #expect(await predictor.scored == ["Can you give me a word that rhymes with cat?"])
        #expect(turns.first?.endOfTurn != nil)
    }

    @Test("no stretch is transcribed twice: the kept speech is in the turn once, and not in the turns after it")
    func nothingRepeated() async throws {
        let opening = Self.opening
        let middle = StretchTranscriber.Stretch(amplitude: 0.2, words: "a word that")
        let end = StretchTranscriber.Stretch(amplitude: 0.3, words: "rhymes with cat?")
        let next = StretchTranscriber.Stretch(amplitude: 0.5, words: "And with dog?")
        let stt = StretchTranscriber([opening, middle, end, next])
        let llm = ScriptedLanguageModel(replies: [["Hat."], ["Log."]])
        // Cut after "that", the words sound unfinished: the turn waits for the long silence.
        let predictor = FixedTurnPredictor(["Can you give me a word that": 0])
        let session = makePredictingSession(stt: stt, llm: llm, predictor: predictor, duplex: .half)
        let seen = await StatesSeen.following(session)
        let input = FrameFeed()
        let run = Task { try await session.run(input.stream) }

        input.feed(opening.audio(1) + TestAudio.silence(1.5))
        await eventually { await seen.states == [.armed, .listening, .thinking, .listening] }
        input.feed(middle.audio(0.8) + TestAudio.silence(0.3))
        await eventually { await predictor.scored.contains("Can you give me a word that") }
        input.feed(TestAudio.silence(0.3) + end.audio(0.8) + TestAudio.silence(0.3))
        await eventually { await predictor.scored.contains("Can you give me a word that rhymes with cat?") }
        // The next question follows soon after the first turn.
        input.feed(TestAudio.silence(1.5) + next.audio(1) + TestAudio.silence(1.5))
        input.finish()
        let turns = try await run.value
        await session.close()

        #expect(turns.map(\.transcript) == ["Can you give me a word that rhymes with cat?", "And with dog?"])
        let asked = await llm.requests.map { $0.messages.filter { $0.role == .user }.map(\.text) }
        #expect(asked.last == ["Can you give me a word that rhymes with cat?", "And with dog?"])
        // Every transcription heard each stretch at most once.
        for text in await stt.heard {
            for words in ["Can you give me", "a word that", "rhymes with cat?", "And with dog?"] {
                #expect(text.components(separatedBy: words).count <= 2, "\"\(words)\" repeated in \"\(text)\"")
            }
        }
    }
}
