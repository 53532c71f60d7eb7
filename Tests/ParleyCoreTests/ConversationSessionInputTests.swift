import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("The conversation session's other inputs, subscribers and timers", .timeLimit(.minutes(1)))
struct ConversationSessionInputTests {
    let image = ChatMessage.Part.image(data: Data([0x89, 0x50, 0x4E, 0x47]), mimeType: "image/png")

    @Test("a typed message is answered and spoken, written down, and the conversation returns to where it was")
    func typedTurn() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["unused"])
        let llm = ScriptedLanguageModel(replies: [["Hello there."]])
        let tts = ToneTextToSpeech()
        let journal = RecordingJournal()
        let session = makeSession(stt: stt, llm: llm, tts: tts, journal: journal)
        let turn = try #require(try await session.send(text: "Hi!"))

        #expect(turn.transcript == "Hi!")
        #expect(turn.reply == "Hello there.")
        #expect(turn.isTyped)
        #expect(turn.providers.stt.isEmpty)
        #expect(await llm.requests.first?.messages.last == .user("Hi!"))
        #expect(await tts.spoken == ["Hello there."])
        #expect(await stt.received.isEmpty)
        let entries = await journal.entries
        #expect(entries.map(\.role) == [.user, .assistant])
        #expect(entries[0].text == "Hi!")
        #expect(entries[0].rawTranscript == nil)
        #expect(await session.state == .idle)
    }

    @Test("text with an image reaches a vision-capable model with the image in the user's message")
    func imageTurn() async throws {
        let llm = ScriptedLanguageModel(replies: [["A tiny picture."]], supportsImages: true)
        let journal = RecordingJournal()
        let session = makeSession(llm: llm, journal: journal)
        let turn = try await session.send(text: "What is this?", images: [image])
        #expect(turn?.reply == "A tiny picture.")
        // The typed question is saved with its image.
        let saved = try #require(await journal.entries.first)
        #expect(saved.typedText == "What is this?" && saved.rawTranscript == nil)
        #expect(saved.images.map(\.part) == [image])
        let question = try #require(await llm.requests.first?.messages.last)
        #expect(question.role == .user)
        #expect(question.parts == [image, .text("What is this?")])
        // The image stays in the history for the next turn.
        _ = try await session.send(text: "And the colours?")
        #expect(await llm.requests.last?.messages.dropLast().last?.role == .assistant)
        #expect(await llm.requests.last?.messages.contains { $0.hasImages } == true)
    }

    @Test("an image for a model that cannot read images is refused with a clear error, and nothing is sent")
    func imageRefused() async throws {
        let llm = ScriptedLanguageModel(name: "text-only", replies: [["unused"]], supportsImages: false)
        let session = makeSession(llm: llm)
        let error = await #expect(throws: UnsupportedCapabilityError.self) {
            try await session.send(text: "What is this?", images: [image])
        }
        #expect(error?.missing == [.images])
        #expect(error?.description.contains("cannot read images") == true)
        #expect(await llm.requests.isEmpty)
        #expect(await session.state == .idle)
    }

    @Test("typed text is refused while the user speaks, and when empty")
    func typedRejected() async throws {
        let session = makeSession(llm: ScriptedLanguageModel(replies: [["Ok."]])) { $0.startsListening = false }
        await #expect(throws: TestSession.Rejection.self) { try await session.send(text: "   ") }
        try await session.setGate(.permissionGranted, open: true)
        try await session.setGate(.audioReady, open: true)
        try await session.arm()
        try await session.startListening(.user)
        for frame in TestAudio.frames(TestAudio.speech(0.5)) { try await session.append(frame) }
        await #expect(throws: TestSession.Rejection.self) { try await session.send(text: "Hello") }
    }

    @Test("one session serves two runs, turn after turn, with the history carried over and updates still flowing")
    func twoRuns() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["What is the capital of France?", "And of Italy?"])
        let llm = ScriptedLanguageModel(replies: [["Paris."], ["Rome."]])
        let session = makeSession(stt: stt, llm: llm)
        let updates = collect(await session.updates())
        let audio = TestAudio.speech(1) + TestAudio.silence(1.5)
        let first = try await session.run(TestAudio.stream(audio))
        #expect(await session.state == .idle)
        let second = try await session.run(TestAudio.stream(audio))
        await session.close()

        #expect(first.map(\.transcript) == ["What is the capital of France?"])
        #expect(second.map(\.transcript) == ["And of Italy?"])
        #expect(await llm.requests.last?.messages.map(\.text).suffix(3) == ["What is the capital of France?", "Paris.", "And of Italy?"])
        let seen = await updates.value
        #expect(seen.filter { if case .turn = $0 { true } else { false } }.count == 2)
        #expect(
            seen.states == [
                .armed, .listening, .thinking, .speaking, .listening, .idle,
                .armed, .listening, .thinking, .speaking, .listening, .idle,
            ])
    }

    @Test("every subscriber gets every update, until the session is closed")
    func twoSubscribers() async throws {
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: ["Hi."]), llm: ScriptedLanguageModel(replies: [["Hello", " there."]]))
        let first = collect(await session.updates())
        let second = collect(await session.updates())
        _ = try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        await session.close()
        let one = await first.value, other = await second.value

        #expect(one == other)
        #expect(one.contains(.finalTranscript("Hi.")))
        #expect(one.contains(.replyText("Hello")) && one.contains(.replyText(" there.")))
        #expect(one.contains { if case .turn(let turn) = $0 { turn.reply == "Hello there." } else { false } })
        #expect(one.states.last == .idle)
        // After closing, a new subscriber's stream ends at once and input is refused.
        #expect(await collect(await session.updates()).value.isEmpty)
        await #expect(throws: ConversationFailure.closed) { try await session.append(AudioBuffer(samples: [0], sampleRate: 16_000)) }
    }

    @Test("audio levels are reported frame by frame for a meter")
    func audioLevels() async throws {
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: ["Hi."]), llm: ScriptedLanguageModel(replies: [["Ok."]]))
        let updates = collect(await session.updates())
        _ = try? await session.run(TestAudio.stream(TestAudio.silence(0.5) + TestAudio.speech(0.5)))
        await session.close()
        let levels = await updates.value.levels
        // One per 512-sample frame of the second of audio.
        #expect(levels.count == 16_000 / 512)
        #expect(levels.prefix(15).allSatisfy { $0 == 0 })
        // The tone's RMS: 0.3 / √2.
        #expect(levels.suffix(10).allSatisfy { abs($0 - 0.212) < 0.01 }, "\(levels.suffix(10))")
    }

    @Test("listening gives up when the listen timeout passes on the session's clock; speech cancels it")
    func listenTimeout() async throws {
        let clock = ManualClock()
        let session = makeSession(llm: ScriptedLanguageModel(replies: [["Ok."]]), clock: clock) {
            $0.startsListening = false
            $0.rules.listenTimeout = .seconds(5)
        }
        let updates = await session.updates()
        try await session.setGate(.permissionGranted, open: true)
        try await session.setGate(.audioReady, open: true)
        try await session.arm()
        try await session.startListening(.user)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(4))
        #expect(await session.state == .listening)
        clock.advance(by: .seconds(1))
        for await update in updates {
            if case .transition(.listening, .armed) = update { break }
        }
        #expect(await session.state == .armed)
        #expect(clock.sleepers == 0)

        // Listening again: the timeout is set anew and speech cancels it.
        try await session.startListening(.user)
        await clock.waitForSleepers()
        for frame in TestAudio.frames(TestAudio.speech(0.5)) { try await session.append(frame) }
        #expect(clock.sleepers == 0)
        clock.advance(by: .seconds(10))
        #expect(await session.state == .listening)
        await session.close()
    }

    @Test("cancel cuts the reply in progress short; what was heard is saved as interrupted")
    func cancelReply() async throws {
        let llm = ScriptedLanguageModel(replies: [["First sentence here.", " Second sentence is longer."]])
        let journal = RecordingJournal()
        let output = HeldOutput(held: [1], heardOnStop: 0.2)
        let session = makeSession(llm: llm, output: output, journal: journal) { $0.duplex = .full }
        let sent = Task { try await session.send(text: "Tell me a story.") }
        await output.waitUntilHolding()
        #expect(await session.state == .speaking)
        try await session.cancel()
        let turn = try #require(try await sent.value)
        #expect(turn.interrupted)
        #expect(turn.reply == "First sentence here.")
        #expect(await journal.entries.last?.interrupted == true)
        #expect(await session.state == .idle)
        await #expect(throws: TestSession.Rejection.self) { try await session.cancel() }
    }

    @Test("stopping listening mid-utterance ends it at once and answers it (push-to-talk)")
    func pushToTalk() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["What time is it?"])
        let llm = ScriptedLanguageModel(replies: [["Noon."]])
        let session = makeSession(stt: stt, llm: llm) {
            $0.startsListening = false
            $0.rules.continuous = false
        }
        let updates = collect(await session.updates())
        try await session.setGate(.permissionGranted, open: true)
        try await session.setGate(.audioReady, open: true)
        try await session.arm()
        try await session.startListening(.user)
        for frame in TestAudio.frames(TestAudio.speech(1)) { try await session.append(frame) }
        try await session.stopListening()
        await session.close()
        let seen = await updates.value
        #expect(seen.contains { if case .turn(let turn) = $0 { turn.transcript == "What time is it?" && turn.reply == "Noon." } else { false } })
        #expect(seen.states == [.armed, .listening, .thinking, .speaking, .armed, .idle])
        let heard = try #require(await stt.received.first)
        #expect(heard.duration > 0.9 && heard.duration < 1.3)
    }
}
