import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// Records what a conversation writes down.
actor RecordingJournal: ConversationJournal {
    private(set) var entries: [JournalEntry] = []
    func record(_ entry: JournalEntry) { entries.append(entry) }
}

/// An output whose playback of the replies listed in `held` never ends by itself (the
/// listener is still hearing it), and which reports `heardOnStop` seconds when stopped.
actor HeldOutput: AudioOutput {
    private let held: Set<Int>
    private let heardOnStop: Double
    private var reply = 0
    private var queued = 0.0

    init(held: Set<Int>, heardOnStop: Double) {
        self.held = held
        self.heardOnStop = heardOnStop
    }

    func beginReply() {
        reply += 1
        queued = 0
    }

    func play(_ chunk: AudioBuffer) { queued += chunk.duration }
    func stop() -> Double { min(heardOnStop, queued) }

    func finish() async -> Double {
        if held.contains(reply) {
            // Playing until the engine cancels it (the sleep ends at once when cancelled).
            try? await Task.sleep(for: .seconds(3_600))
            return stop()
        }
        return queued
    }
}

@Suite("The conversation engine (with test doubles)", .timeLimit(.minutes(1)))
struct ConversationEngineTests {
    static func speech(_ seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 150 * Double($0) / 16_000)) }
    }

    static func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 16_000)) }

    /// `samples` as 100 ms frames.
    static func frames(_ samples: [Float]) -> [AudioBuffer] {
        stride(from: 0, to: samples.count, by: 1_600).map {
            AudioBuffer(samples: Array(samples[$0..<min(samples.count, $0 + 1_600)]), sampleRate: 16_000)
        }
    }

    static func stream(_ samples: [Float]) -> AsyncStream<AudioBuffer> {
        AsyncStream { continuation in
            for frame in frames(samples) { continuation.yield(frame) }
            continuation.finish()
        }
    }

    func engine(stt: ScriptedSpeechToText, llm: ScriptedLanguageModel, tts: ToneTextToSpeech = ToneTextToSpeech(),
                output: any AudioOutput = RecordingOutput(clock: ContinuousClock(), realtime: false),
                journal: RecordingJournal? = nil, history: [ChatMessage] = [],
                configure: (inout ConversationEngine.Configuration) -> Void = { _ in }) -> ConversationEngine {
        var configuration = ConversationEngine.Configuration(duplex: .half)
        configure(&configuration)
        return ConversationEngine(vad: EnergyVoiceActivityDetector(), stt: stt, llm: llm, tts: tts, output: output,
                                  journal: journal, history: history, configuration: configuration)
    }

    @Test("two questions separated by a pause make two turns, with history carried over and both written down")
    func twoTurns() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["What is the capital of France?", "And of Italy?"])
        let llm = ScriptedLanguageModel(replies: [["The capital", " is Paris. It is", " lovely."], ["Rome."]])
        let tts = ToneTextToSpeech()
        let journal = RecordingJournal()
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
        let conversation = engine(stt: stt, llm: llm, tts: tts, output: output, journal: journal)
        let audio = Self.silence(0.3) + Self.speech(1) + Self.silence(2) + Self.speech(1) + Self.silence(1.5)
        let turns = try await conversation.run(Self.stream(audio))

        #expect(turns.map(\.transcript) == ["What is the capital of France?", "And of Italy?"])
        #expect(turns.map(\.reply) == ["The capital is Paris. It is lovely.", "Rome."])
        #expect(turns.allSatisfy { !$0.interrupted })
        #expect(await tts.spoken == ["The capital is Paris.", "It is lovely.", "Rome."])
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
        #expect(entries[1].text == "The capital is Paris. It is lovely.")
        #expect(entries[3].provider == "scripted")
        // The recording holds both replies with a half-second gap.
        let recorded = try #require(await output.heardAudio)
        let expected = turns.reduce(0) { $0 + $1.replyAudioDuration } + 0.5
        #expect(abs(recorded.duration - expected) < 0.01)
        #expect(turns[0].latency.endpointSilence == 1200)
        #expect(turns[0].latency.firstAudio >= turns[0].latency.finalTranscript)
    }

    @Test("the silence that ends a turn is the configured one", arguments: [(1.2, 2), (2.5, 1)])
    func endpointing(endSilence: Double, expectedTurns: Int) async throws {
        let stt = ScriptedSpeechToText(transcripts: ["one", "two"])
        let conversation = engine(stt: stt, llm: ScriptedLanguageModel(replies: [["Ok."]])) {
            $0.segmentation.endSilence = endSilence
        }
        // A 1.8 s pause: longer than 1.2 s, shorter than 2.5 s.
        let audio = Self.speech(1) + Self.silence(1.8) + Self.speech(1) + Self.silence(3)
        let turns = try await conversation.run(Self.stream(audio))
        #expect(turns.count == expectedTurns)
    }

    @Test("a turn longer than the maximum is cut and answered")
    func maximumTurnLength() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["a long ramble"])
        let conversation = engine(stt: stt, llm: ScriptedLanguageModel(replies: [["Ok."]])) {
            $0.segmentation.maxSpeech = 2
        }
        let turns = try await conversation.run(Self.stream(Self.speech(5) + Self.silence(1.5)))
        #expect(turns.count >= 2)
        #expect(await stt.received.allSatisfy { $0.duration <= 2.5 })
    }

    @Test("the first audio is played before the model has finished writing")
    func streamingSpeaksEarly() async throws {
        let llm = ScriptedLanguageModel(replies: [["First sentence.", " Second", " part", " of", " the", " answer."]], pieceDelay: .milliseconds(30))
        let conversation = engine(stt: ScriptedSpeechToText(transcripts: ["hi"]), llm: llm)
        let turns = try await conversation.run(Self.stream(Self.speech(1) + Self.silence(1.5)))
        let turn = try #require(turns.first)
        #expect(turn.timings.firstAudio < turn.timings.llmTotal)
    }

    @Test("silent audio is reported as no speech")
    func silentAudio() async {
        let conversation = engine(stt: ScriptedSpeechToText(transcripts: ["x"]), llm: ScriptedLanguageModel(replies: [["y"]]))
        await #expect(throws: ConversationEngine.Failure.noSpeech(duration: 2)) {
            try await conversation.run(Self.stream(Self.silence(2)))
        }
    }

    @Test("speech with no recognisable words is reported, not answered")
    func nothingTranscribed() async {
        let llm = ScriptedLanguageModel(replies: [["y"]])
        let conversation = engine(stt: ScriptedSpeechToText(transcripts: ["[BLANK_AUDIO]"]), llm: llm)
        await #expect(throws: ConversationEngine.Failure.nothingTranscribed) {
            try await conversation.run(Self.stream(Self.silence(0.5) + Self.speech(1) + Self.silence(1.5)))
        }
        #expect(await llm.requests.isEmpty)
    }

    @Test("an earlier conversation's history goes to the model")
    func continuesHistory() async throws {
        let llm = ScriptedLanguageModel(replies: [["Sure."]])
        let conversation = engine(stt: ScriptedSpeechToText(transcripts: ["again"]), llm: llm,
                                  history: [.user("before"), .assistant("answer before")])
        _ = try await conversation.run(Self.stream(Self.speech(1) + Self.silence(1.5)))
        #expect(await llm.requests.first?.messages.map(\.text) == [ConversationEngine.Configuration().systemPrompt, "before", "answer before", "again"])
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
        let conversation = engine(stt: stt, llm: llm, tts: tts, output: output, journal: journal) { $0.duplex = .full }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let states = Task {
            var seen: [ConversationState] = []
            for await update in conversation.updates {
                guard case .transition(_, let to) = update else { continue }
                seen.append(to)
                if to == .speaking && seen.filter({ $0 == .speaking }).count == 1 {
                    for frame in Self.frames(Self.speech(1) + Self.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
            }
            return seen
        }
        for frame in Self.frames(Self.speech(1) + Self.silence(1.5)) { feed.yield(frame) }
        let turns = try await conversation.run(input)
        let seen = await states.value

        #expect(turns.count == 2)
        #expect(turns[0].interrupted)
        #expect(turns[0].reply == "First sentence here.")
        #expect(turns[0].fullReply == "First sentence here. Second sentence is longer. Third.")
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
        let conversation = engine(stt: stt, llm: ScriptedLanguageModel(replies: [["Paris."]])) { $0.partialInterval = 0.8 }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let watcher = Task {
            var partials: [String] = []
            for await update in conversation.updates {
                if case .partialTranscript(let text) = update {
                    partials.append(text)
                    for frame in Self.frames(Self.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
            }
            return partials
        }
        for frame in Self.frames(Self.speech(1)) { feed.yield(frame) }
        let turns = try await conversation.run(input)
        #expect(await watcher.value == ["what is"])
        #expect(turns.first?.partialTranscripts == ["what is"])
        #expect(turns.first?.transcript == "what is the capital")
    }

    @Test("the user corrects the transcript before it is sent: the model gets the correction, the raw transcript is kept")
    func reviewedTranscript() async throws {
        let llm = ScriptedLanguageModel(replies: [["Rome."]])
        let journal = RecordingJournal()
        let conversation = engine(stt: ScriptedSpeechToText(transcripts: ["What is the capital of Italie?", "never mind"]),
                                  llm: llm, journal: journal) { configuration in
            configuration.reviewTranscript = { heard in heard == "never mind" ? nil : "What is the capital of Italy?" }
        }
        let turns = try await conversation.run(Self.stream(Self.speech(1) + Self.silence(1.5) + Self.speech(1) + Self.silence(1.5)))
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
        let conversation = ConversationEngine(
            vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["hi"]),
            llm: ScriptedLanguageModel(name: "quiet", replies: [[]]), tts: ToneTextToSpeech(),
            output: RecordingOutput(clock: ContinuousClock(), realtime: false), journal: journal,
            configuration: .init(duplex: .half), logger: logs.logger(label: "conversation"))
        let turns = try await conversation.run(Self.stream(Self.speech(1) + Self.silence(1.5)))
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
        let conversation = ConversationEngine(
            vad: EnergyVoiceActivityDetector(), stt: ScriptedSpeechToText(transcripts: ["hi"]),
            llm: ScriptedLanguageModel(replies: [["Hello."]]), tts: ToneTextToSpeech(),
            output: RecordingOutput(clock: ContinuousClock(), realtime: false), journal: FailingJournal(),
            configuration: .init(duplex: .half))
        await #expect(throws: DiskFull.self) {
            try await conversation.run(Self.stream(Self.speech(1) + Self.silence(1.5)))
        }
    }
}

@Suite("What the listener heard")
struct SpokenReplyTests {
    let reply = SpokenReply(sentences: [
        .init(text: "The capital is Paris.", duration: 2),
        .init(text: "It is a lovely city by the river.", duration: 3),
    ])

    @Test("cut points", arguments: [
        (0.0, ""),
        (0.5, "The"),
        (2.0, "The capital is Paris."),
        (3.0, "The capital is Paris. It is a lovely"),
        (5.0, "The capital is Paris. It is a lovely city by the river."),
        (9.0, "The capital is Paris. It is a lovely city by the river."),
    ])
    func heard(played: Double, expected: String) {
        #expect(reply.heard(upTo: played) == expected)
    }

    @Test("a playback timeline counts gaps when audio arrives late")
    func timeline() {
        let clock = ManualClock()
        var timeline = PlaybackTimeline<ManualClock.Instant>()
        let start = clock.now
        timeline.enqueue(seconds: 1, at: start)
        // The second chunk arrives 2 s in, after the first finished: a 1 s gap.
        timeline.enqueue(seconds: 1, at: start.advanced(by: .seconds(2)))
        #expect(timeline.played(at: start.advanced(by: .milliseconds(500))) == 0.5)
        #expect(timeline.played(at: start.advanced(by: .milliseconds(1500))) == 1)
        #expect(timeline.played(at: start.advanced(by: .milliseconds(2500))) == 1.5)
        #expect(timeline.finish == start.advanced(by: .seconds(3)))
        #expect(timeline.queued == 2)
    }

    @Test("a realtime recording keeps only what was played before stop")
    func recordingStops() async {
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock, realtime: true)
        await output.beginReply()
        await output.play(AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000))
        clock.advance(by: .milliseconds(250))
        #expect(await output.stop() == 0.25)
        #expect(await output.heardAudio?.duration == 0.25)
    }
}

@Suite("The context window")
struct ContextWindowTests {
    @Test("old turns are dropped first; the system prompt and the newest message stay")
    func trims() {
        let history: [ChatMessage] = [.system("Be brief.")]
            + (0..<50).flatMap { [ChatMessage.user("question \($0) " + String(repeating: "x", count: 100)), .assistant("answer \($0)")] }
            + [.user("last question")]
        let trimmed = ContextWindow(tokens: 400, reservedForReply: 100).trim(history)
        #expect(trimmed.first == .system("Be brief."))
        #expect(trimmed.last == .user("last question"))
        #expect(trimmed.count < history.count)
        #expect(trimmed[1].role == .user)
        #expect(trimmed.dropFirst().dropLast().last?.text == "answer 49")
        let estimated = trimmed.reduce(0) { $0 + ContextWindow.estimatedTokens(of: $1) }
        #expect(estimated <= 300)
    }

    @Test("a history that fits is unchanged")
    func fits() {
        let history: [ChatMessage] = [.system("s"), .user("a"), .assistant("b"), .user("c")]
        #expect(ContextWindow(tokens: 2048, reservedForReply: 128).trim(history) == history)
    }
}

/// A transcriber whose live session reports how much audio it heard; whole-buffer calls are
/// recorded so a test can check they were not needed.
actor LiveCountingSpeechToText: SpeechToTextProvider {
    nonisolated let identity = ProviderIdentity(name: "live-counter", isLocal: true)
    nonisolated let preferredSampleRate = 16_000
    nonisolated var transcribesLive: Bool { true }
    private(set) var wholeBufferCalls = 0

    nonisolated func availability() async -> Availability { .ready }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        wholeBufferCalls += 1
        return Transcript(text: "whole buffer")
    }

    nonisolated func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        AsyncThrowingStream { continuation in
            let task = Task {
                var samples = 0
                var announced = 0
                for try await frame in frames {
                    samples += frame.samples.count
                    if samples / 8_000 > announced {
                        announced = samples / 8_000
                        continuation.yield(.partial("heard \(announced * 500) ms"))
                    }
                }
                continuation.yield(.final(Transcript(text: "heard \(samples) samples")))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

@Suite("Live transcription in a conversation")
struct LiveTranscriptionTests {
    @Test("a live provider hears the utterance while it is spoken; its final transcript is the turn's, without a whole-buffer call")
    func liveSession() async throws {
        let stt = LiveCountingSpeechToText()
        let llm = ScriptedLanguageModel(replies: [["Ok."]])
        let conversation = ConversationEngine(
            vad: EnergyVoiceActivityDetector(), stt: stt, llm: llm, tts: ToneTextToSpeech(),
            output: RecordingOutput(clock: ContinuousClock(), realtime: false), configuration: .init(duplex: .half))
        let audio = ConversationEngineTests.silence(0.5) + ConversationEngineTests.speech(2) + ConversationEngineTests.silence(1.5)
        let turns = try await conversation.run(ConversationEngineTests.stream(audio))
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
}

@Suite("A host app driving the conversation's gates")
struct HostGatedConversationTests {
    @Test("nothing is heard until the gates are open and listening starts on a deliberate trigger")
    func gatedListening() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["the second question"])
        let llm = ScriptedLanguageModel(replies: [["Answered."]])
        let conversation = ConversationEngine(
            vad: EnergyVoiceActivityDetector(), stt: stt, llm: llm, tts: ToneTextToSpeech(),
            output: RecordingOutput(clock: ContinuousClock(), realtime: false),
            configuration: .init(duplex: .full, startsListening: false))

        // Arming needs the gates; a scroll never starts listening.
        await #expect(throws: ConversationEngine.Rejection.self) { try await conversation.arm() }
        try await conversation.setGate(.permissionGranted, open: true)
        try await conversation.setGate(.audioReady, open: true)
        try await conversation.arm()
        await #expect(throws: ConversationEngine.Rejection.self) { try await conversation.startListening(.incidental) }
        #expect(await conversation.state == .armed)

        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let host = Task {
            for await update in conversation.updates {
                // The first utterance ended while armed, unheard: now the user taps to talk.
                if case .rejected(let reason) = update, reason.contains("no speech can end") {
                    try await conversation.startListening(.user)
                    for frame in ConversationEngineTests.frames(ConversationEngineTests.speech(1) + ConversationEngineTests.silence(1.5)) {
                        feed.yield(frame)
                    }
                    feed.finish()
                }
            }
        }
        for frame in ConversationEngineTests.frames(ConversationEngineTests.speech(1) + ConversationEngineTests.silence(1.5)) {
            feed.yield(frame)
        }
        let turns = try await conversation.run(input)
        try await host.value
        #expect(turns.map(\.transcript) == ["the second question"])
        #expect(await stt.received.count == 1)
        #expect(await conversation.state == .idle)
    }
}
