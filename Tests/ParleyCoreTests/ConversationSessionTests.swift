import Synchronization
import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// A conversation session on test doubles and a manual clock.
typealias TestSession = ConversationSession<ManualClock>

func makeSession(
    stt: any SpeechToTextProvider = ScriptedSpeechToText(transcripts: ["unused"]), llm: any LanguageModelProvider,
    tts: ToneTextToSpeech = ToneTextToSpeech(), output: (any AudioOutput)? = nil, journal: (any ConversationJournal)? = nil,
    history: [ChatMessage] = [], clock: ManualClock = ManualClock(), logger: CapturedLogs? = nil,
    configure: (inout ConversationConfiguration) -> Void = { _ in }
) -> TestSession {
    var configuration = ConversationConfiguration(duplex: .half)
    configure(&configuration)
    return ConversationSession(
        vad: EnergyVoiceActivityDetector(), stt: stt, llm: llm, tts: tts, output: output ?? RecordingOutput(clock: clock, realtime: false),
        journal: journal, history: history, configuration: configuration, clock: clock,
        logger: logger?.logger(label: "conversation") ?? .init(label: "conversation"))
}

@Suite("The conversation session over audio (with test doubles)", .timeLimit(.minutes(1)))
struct ConversationSessionTests {
    @Test("two questions separated by a pause make two turns, with history carried over and both written down")
    func twoTurns() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["What is the capital of France?", "And of Italy?"])
        let llm = ScriptedLanguageModel(replies: [["The capital", " is Paris. It is", " lovely."], ["Rome."]])
        let tts = ToneTextToSpeech()
        let journal = RecordingJournal()
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock, realtime: false)
        let session = makeSession(stt: stt, llm: llm, tts: tts, output: output, journal: journal, clock: clock)
        let audio = TestAudio.silence(0.3) + TestAudio.speech(1) + TestAudio.silence(2) + TestAudio.speech(1) + TestAudio.silence(1.5)
        let turns = try await session.run(TestAudio.stream(audio))

        #expect(turns.map(\.transcript) == ["What is the capital of France?", "And of Italy?"])
        #expect(turns.map(\.reply) == ["The capital is Paris. It is lovely.", "Rome."])
        #expect(turns.allSatisfy { !$0.interrupted && !$0.isTyped })
        #expect(await tts.spoken == ["The capital", "is Paris.", "It is lovely.", "Rome."])
        let requests = await llm.requests
        #expect(requests.count == 2)
        #expect(requests[1].messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(requests[1].messages[2].text == "The capital is Paris. It is lovely.")
        // The transcriber got only the speech of each turn.
        let heard = await stt.received
        #expect(heard.count == 2)
        #expect(heard.allSatisfy { $0.duration > 0.9 && $0.duration < 1.6 })
        // Each turn is written down: the question before its answer.
        let entries = await journal.entries
        #expect(entries.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(entries[0].rawTranscript == "What is the capital of France?")
        #expect(entries[0].audio?.duration == heard[0].duration)
        #expect(entries[1].text == "The capital is Paris. It is lovely.")
        #expect(entries[3].provider == "scripted")
        // The recording holds both replies with a half-second gap.
        let recorded = try #require(await output.heardAudio)
        let expected = turns.reduce(0) { $0 + $1.replyAudioDuration } + 0.5
        #expect(abs(recorded.duration - expected) < 0.01)
        #expect(turns[0].latency.endpointSilence == 1200)
        #expect(turns[0].latency.firstAudio >= turns[0].latency.finalTranscript)
        #expect(turns[0].providers == .init(vad: "energy (RMS dBFS)", stt: "scripted-stt", llm: "scripted", tts: "tone-tts"))
    }

    @Test("the silence that ends a turn is the configured one", arguments: [(1.2, 2), (2.5, 1)])
    func endpointing(endSilence: Double, expectedTurns: Int) async throws {
        let stt = ScriptedSpeechToText(transcripts: ["one", "two"])
        let session = makeSession(stt: stt, llm: ScriptedLanguageModel(replies: [["Ok."]])) {
            $0.segmentation.endSilence = endSilence
        }
        // A 1.8 s pause: longer than 1.2 s, shorter than 2.5 s.
        let audio = TestAudio.speech(1) + TestAudio.silence(1.8) + TestAudio.speech(1) + TestAudio.silence(3)
        let turns = try await session.run(TestAudio.stream(audio))
        #expect(turns.count == expectedTurns)
    }

    @Test("a turn longer than the maximum is cut and answered")
    func maximumTurnLength() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["a long ramble"])
        let session = makeSession(stt: stt, llm: ScriptedLanguageModel(replies: [["Ok."]])) {
            $0.segmentation.maxSpeech = 2
        }
        let turns = try await session.run(TestAudio.stream(TestAudio.speech(5) + TestAudio.silence(1.5)))
        #expect(turns.count >= 2)
        #expect(await stt.received.allSatisfy { $0.duration <= 2.5 })
    }

    @Test("the first audio is played before the model has finished writing, timed on the session's clock")
    func streamingSpeaksEarly() async throws {
        let clock = ManualClock()
        let llm = PacedLanguageModel(pieces: ["First sentence.", " Second", " part", " of", " the", " answer."], pause: .milliseconds(30), clock: clock)
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: llm, clock: clock)
        let updates = await session.updates()
        let run = Task { try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5))) }
        var seen = updates.makeAsyncIterator()
        // The first piece comes 30 ms in. Time moves on only once the session has taken it,
        // or a busy machine would time it at the next piece.
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(30))
        while let update = await seen.next() {
            if case .replyText = update { break }
        }
        // The first sentence is complete once the next piece begins, 60 ms in; its audio
        // starts before more is written.
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(30))
        while let update = await seen.next() {
            if case .transition(_, .speaking) = update { break }
        }
        for _ in 0..<4 {
            await clock.waitForSleepers()
            clock.advance(by: .milliseconds(30))
        }
        let turn = try #require(try await run.value.first)
        #expect(turn.timings.llmFirstToken == 30)
        #expect(turn.timings.firstAudio == 60)
        #expect(turn.timings.llmTotal == 180)
        #expect(turn.latency.firstAudio == 60)
    }

    @Test("voice to voice runs from the arrival of the last voiced frame to the first audio of the reply")
    func voiceToVoice() async throws {
        let clock = ManualClock()
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: ScriptedLanguageModel(replies: [["Hello."]]), clock: clock)
        let frames = TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(2))
        let pulled = Mutex(0)
        // Each 100 ms frame is handed over 100 ms after the one before, as a microphone would.
        let paced = AsyncStream<AudioBuffer>(unfolding: {
            let index = pulled.withLock { count in
                defer { count += 1 }
                return count
            }
            guard index < frames.count else { return nil }
            if index > 0 { clock.advance(by: .milliseconds(100)) }
            return frames[index]
        })
        let turn = try #require(try await session.run(paced).first)
        let felt = try #require(turn.latency.voiceToVoice)
        // The speech ends 1 s in, the turn 1.2 s of silence later; the rest is the reply's own
        // first audio after the endpoint.
        #expect(
            abs(felt - turn.latency.firstAudio - 1200) <= 100,
            "voice to voice \(felt) ms, first audio \(turn.latency.firstAudio) ms, speech \(turn.segment.startTime)–\(turn.segment.endTime)")
        // A typed turn has no voice to measure from.
        let typed = try #require(try await session.send(text: "and you?"))
        #expect(typed.latency.voiceToVoice == nil)
    }

    @Test("silent audio is reported as no speech")
    func silentAudio() async {
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: ["x"]), llm: ScriptedLanguageModel(replies: [["y"]]))
        await #expect(throws: ConversationFailure.noSpeech(duration: 2)) {
            try await session.run(TestAudio.stream(TestAudio.silence(2)))
        }
    }

    @Test("speech with no recognisable words is reported, not answered")
    func nothingTranscribed() async {
        let llm = ScriptedLanguageModel(replies: [["y"]])
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: [""]), llm: llm)
        await #expect(throws: ConversationFailure.nothingTranscribed) {
            try await session.run(TestAudio.stream(TestAudio.silence(0.5) + TestAudio.speech(1) + TestAudio.silence(1.5)))
        }
        #expect(await llm.requests.isEmpty)
    }

    @Test("an earlier conversation's history goes to the model")
    func continuesHistory() async throws {
        let llm = ScriptedLanguageModel(replies: [["Sure."]])
        let session = makeSession(
            stt: ScriptedSpeechToText(transcripts: ["again"]), llm: llm,
            history: [.system("old prompt"), .user("before"), .assistant("answer before")])
        _ = try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        #expect(await llm.requests.first?.messages.map(\.text) == [ConversationConfiguration().systemPrompt, "before", "answer before", "again"])
    }

    @Test("speech while a reply plays interrupts it; the stored reply is what was heard")
    func bargeIn() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["Tell me a story.", "Stop, thanks."])
        let llm = ScriptedLanguageModel(replies: [["First sentence here.", " Second sentence is longer.", " Third."], ["Okay."]])
        let tts = ToneTextToSpeech()  // 10 ms of audio per character
        let journal = RecordingJournal()
        // The first reply's playback is still going when the user speaks; 0.2 s of it (the
        // first sentence: 20 characters) had been heard.
        let output = HeldOutput(held: [1], heardOnStop: 0.2)
        let session = makeSession(stt: stt, llm: llm, tts: tts, output: output, journal: journal) { $0.duplex = .full }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let states = Task {
            var seen: [ConversationState] = []
            for await update in updates {
                guard case .transition(_, let to) = update else { continue }
                seen.append(to)
                if to == .speaking && seen.filter({ $0 == .speaking }).count == 1 {
                    // Once the whole reply is written and playing, the user speaks up.
                    await output.waitUntilHolding()
                    for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
                if to == .idle { break }
            }
            return seen
        }
        for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { feed.yield(frame) }
        let turns = try await session.run(input)
        let seen = await states.value

        #expect(turns.count == 2)
        #expect(turns[0].interrupted)
        #expect(turns[0].reply == "First sentence here.")
        #expect(turns[0].fullReply == "First sentence here. Second sentence is longer. Third.")
        #expect(turns[0].replyAudioDuration == 0.2)
        #expect(turns[1].reply == "Okay.")
        #expect(!turns[1].interrupted)
        #expect(seen == [.armed, .listening, .thinking, .speaking, .listening, .thinking, .speaking, .listening, .idle])
        // The next request carries only what the user heard.
        let requests = await llm.requests
        #expect(requests[1].messages.map(\.text).contains("First sentence here."))
        #expect(!requests[1].messages.map(\.text).contains { $0.contains("Third") })
        let entries = await journal.entries
        #expect(entries.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(entries[1].interrupted)
        #expect(entries[1].text == "First sentence here.")
        #expect(entries[1].fullReply == "First sentence here. Second sentence is longer. Third.")
    }

    @Test("partial transcripts stream while the user speaks")
    func partials() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["what is", "what is the capital"])
        let session = makeSession(stt: stt, llm: ScriptedLanguageModel(replies: [["Paris."]])) { $0.partialInterval = 0.8 }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let watcher = Task {
            var partials: [String] = []
            for await update in updates {
                if case .partialTranscript(let text) = update {
                    partials.append(text)
                    for frame in TestAudio.frames(TestAudio.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
                if case .transition(_, .idle) = update { break }
            }
            return partials
        }
        for frame in TestAudio.frames(TestAudio.speech(1)) { feed.yield(frame) }
        let turns = try await session.run(input)
        #expect(await watcher.value == ["what is"])
        #expect(turns.first?.partialTranscripts == ["what is"])
        #expect(turns.first?.transcript == "what is the capital")
    }

    @Test("the user corrects the transcript before it is sent: the model gets the correction, the raw transcript is kept")
    func reviewedTranscript() async throws {
        let llm = ScriptedLanguageModel(replies: [["Rome."]])
        let journal = RecordingJournal()
        let session = makeSession(
            stt: ScriptedSpeechToText(transcripts: ["What is the capital of Italie?", "never mind"]),
            llm: llm, journal: journal
        ) { configuration in
            configuration.reviewTranscript = { heard in heard == "never mind" ? nil : "What is the capital of Italy?" }
        }
        let audio = TestAudio.speech(1) + TestAudio.silence(1.5) + TestAudio.speech(1) + TestAudio.silence(1.5)
        let turns = try await session.run(TestAudio.stream(audio))
        #expect(turns.map(\.transcript) == ["What is the capital of Italy?"])
        #expect(await llm.requests.count == 1)
        #expect(await llm.requests.first?.messages.last?.text == "What is the capital of Italy?")
        let user = try #require(await journal.entries.first)
        #expect(user.rawTranscript == "What is the capital of Italie?")
        #expect(user.editedText == "What is the capital of Italy?")
        #expect(user.text == "What is the capital of Italy?")
    }

    @Test("an empty reply is reported with a warning, not saved as a message")
    func emptyReply() async throws {
        let logs = CapturedLogs()
        let journal = RecordingJournal()
        let session = makeSession(
            stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: ScriptedLanguageModel(name: "quiet", replies: [[]]),
            journal: journal, logger: logs)
        let turns = try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        #expect(turns.map(\.reply) == [""])
        #expect(await journal.entries.map(\.role) == [.user])
        #expect(logs.messages(at: .warning).contains { $0.contains("quiet") && $0.contains("empty reply") })
    }

    @Test("a journal that cannot write stops the conversation with its error")
    func journalFailure() async {
        struct DiskFull: Error {}
        struct FailingJournal: ConversationJournal {
            func record(_ entry: JournalEntry) async throws { throw DiskFull() }
        }
        let session = makeSession(
            stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: ScriptedLanguageModel(replies: [["Hello."]]),
            journal: FailingJournal())
        await #expect(throws: DiskFull.self) {
            try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        }
        guard case .error = await session.state else {
            Issue.record("the session is \(await session.state), not in the error state")
            return
        }
        // The error stays until the conversation is reset.
        await #expect(throws: DiskFull.self) { try await session.append(AudioBuffer(samples: [0], sampleRate: 16_000)) }
        try? await session.reset()
        #expect(await session.state == .idle)
    }
}

@Suite("Live transcription in a conversation", .timeLimit(.minutes(1)))
struct LiveTranscriptionTests {
    @Test("a live provider hears the utterance while it is spoken; its final transcript is the turn's, without a whole-buffer call")
    func liveSession() async throws {
        let stt = LiveCountingSpeechToText()
        let llm = ScriptedLanguageModel(replies: [["Ok."]])
        let session = makeSession(stt: stt, llm: llm)
        let audio = TestAudio.silence(0.5) + TestAudio.speech(2) + TestAudio.silence(1.5)
        let turns = try await session.run(TestAudio.stream(audio))
        let turn = try #require(turns.first)
        #expect(await stt.wholeBufferCalls == 0)
        #expect(turn.partialTranscripts.first == "heard 500 ms")
        // The utterance was streamed from its (padded) start until the silence ended it: the
        // segment, then the closing silence the VAD listened to; not the silence before it.
        let heard = try #require(Int(turn.transcript.split(separator: " ")[1]))
        let segmentSamples = turn.segment.end - turn.segment.start
        #expect(heard >= segmentSamples && heard <= segmentSamples + 16_000 * 12 / 10, "heard \(heard), segment \(segmentSamples)")
        #expect(await llm.requests.first?.messages.last?.text == turn.transcript)
    }

    @Test("a live session that fails is replaced by a whole-buffer transcription of the utterance, with a warning")
    func liveSessionFails() async throws {
        let stt = LiveCountingSpeechToText(failing: true)
        let logs = CapturedLogs()
        let session = makeSession(stt: stt, llm: ScriptedLanguageModel(replies: [["Ok."]]), logger: logs)
        let turns = try await session.run(TestAudio.stream(TestAudio.silence(0.5) + TestAudio.speech(2) + TestAudio.silence(1.5)))
        let turn = try #require(turns.first)
        #expect(await stt.wholeBufferCalls == 1)
        #expect(turn.transcript == "whole buffer of \(turn.segment.end - turn.segment.start) samples")
        #expect(logs.messages(at: .warning).contains { $0.contains("live session failed") })
    }

    @Test(
        "a chain whose first provider is not live gets one whole-buffer call per turn, plus partials at most every interval",
        arguments: [(nil, 1), (1.0, 3)] as [(Double?, Int)])
    func nonLiveChain(partialInterval: Double?, mostCalls: Int) async throws {
        let assembly = SessionCountingTranscriber(name: "assemblyai", live: false, text: "What is the capital of France?")
        let deepgram = SessionCountingTranscriber(name: "deepgram", live: true, text: "unused")
        let clock = ManualClock()
        let chain = SpeechToTextChain(providers: [assembly, deepgram], health: ProviderHealth(clock: clock))
        let session = makeSession(stt: chain, llm: ScriptedLanguageModel(replies: [["Paris."]]), clock: clock) {
            $0.partialInterval = partialInterval
        }
        // A 2.2 s question.
        let turns = try await session.run(TestAudio.stream(TestAudio.silence(0.3) + TestAudio.speech(2.2) + TestAudio.silence(1.5)))
        #expect(turns.map(\.transcript) == ["What is the capital of France?"])
        let calls = await assembly.wholeBufferCalls
        #expect(calls >= 1 && calls <= mostCalls, "\(calls) calls")
        #expect(await deepgram.liveSessions == 0)
    }
}

@Suite("A host app driving the conversation's gates", .timeLimit(.minutes(1)))
struct HostGatedConversationTests {
    @Test("nothing is heard until the gates are open and listening starts on a deliberate trigger")
    func gatedListening() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["the second question"])
        let llm = ScriptedLanguageModel(replies: [["Answered."]])
        let session = makeSession(stt: stt, llm: llm) {
            $0.duplex = .full
            $0.startsListening = false
        }

        // Arming needs the gates; a scroll never starts listening.
        await #expect(throws: TestSession.Rejection.self) { try await session.arm() }
        try await session.setGate(.permissionGranted, open: true)
        try await session.setGate(.audioReady, open: true)
        try await session.arm()
        await #expect(throws: TestSession.Rejection.self) { try await session.startListening(.incidental) }
        #expect(await session.state == .armed)

        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let host = Task {
            for await update in updates {
                // The first utterance ended while armed, unheard: now the user taps to talk.
                if case .rejected(let reason) = update, reason.contains("no speech can end") {
                    try await session.startListening(.user)
                    for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
                if case .transition(_, .idle) = update { break }
            }
        }
        for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { feed.yield(frame) }
        let turns = try await session.run(input)
        try await host.value
        #expect(turns.map(\.transcript) == ["the second question"])
        #expect(await stt.received.count == 1)
        #expect(await session.state == .idle)
    }
}

/// An output that notes, as each chunk is played, how many updates the session had broadcast.
private actor CountingOutput: AudioOutput {
    var session: TestSession?
    private(set) var broadcastAtPlay: [Int] = []

    func follow(_ session: TestSession) { self.session = session }
    func beginReply() {}
    func play(_ chunk: AudioBuffer) async {
        if let session { broadcastAtPlay.append(await session.updatesBroadcast) }
    }
    func stop() -> Double { 0 }
    func finish() async -> Double { 0 }
}

extension ConversationSessionTests {
    @Test("counted updates: a reply's audio is played after the turn's transcript was broadcast, as the counts tell a late subscriber")
    func countedUpdates() async throws {
        let output = CountingOutput()
        let session = makeSession(
            stt: ScriptedSpeechToText(transcripts: ["hi"]),
            llm: ScriptedLanguageModel(replies: [["Hello."]]), output: output)
        await output.follow(session)
        #expect(await session.updatesBroadcast == 0)
        let first = await session.countedUpdates()
        #expect(first.before == 0)
        let seen = Task {
            var seen: [ConversationUpdate] = []
            for await update in first.updates {
                seen.append(update)
                if case .transition(_, .idle) = update { break }
            }
            return seen
        }
        _ = try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        let updates = await seen.value
        #expect(await session.updatesBroadcast == updates.count)
        // The n-th update (from 1) is the session's n-th: the transcript's number is at most
        // the count read when the reply's first chunk was played.
        let transcript = try #require(updates.firstIndex { if case .finalTranscript = $0 { true } else { false } }) + 1
        let played = try #require(await output.broadcastAtPlay.first)
        #expect(played >= transcript)
        // A stream begun later starts counting from what came before it.
        let later = await session.countedUpdates()
        #expect(later.before == updates.count)
    }
}
