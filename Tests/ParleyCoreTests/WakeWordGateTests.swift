import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// The wake word gate in front of the VAD, with a scripted spotter (the real detector is tested
/// on real audio in ParleyLocalTests): only the spotter hears audio while the conversation is
/// armed; the phrase starts listening through the state machine with the pre-roll; the
/// follow-up passes on the manual clock and the conversation waits for the phrase again.
@Suite("The wake word gate", .timeLimit(.minutes(1)))
struct WakeWordGateTests {
    /// Fires on a frame that starts with ``marker`` (the "phrase"); records what it heard.
    actor ScriptedSpotter: WakeWordSpotter {
        static let marker: Float = 0.777
        private(set) var heard = 0
        private(set) var resets = 0
        func listen(to frame: AudioBuffer) -> WakeWordDetection? {
            heard += frame.samples.count
            return frame.samples.first == Self.marker ? WakeWordDetection(phrase: "test", score: 1, heard: 0) : nil
        }
        func reset() { resets += 1 }
    }

    static func phrase() -> [AudioBuffer] {
        [AudioBuffer(samples: [ScriptedSpotter.marker] + TestAudio.silence(0.1).dropFirst(), sampleRate: 16_000)]
    }

    @Test("armed, speech goes to the spotter alone; the phrase starts listening with the pre-roll; the follow-up ends it")
    func gate() async throws {
        let clock = ManualClock()
        let stt = ScriptedSpeechToText(transcripts: ["What time is it?"])
        let llm = ScriptedLanguageModel(replies: [["It is noon."]])
        let journal = RecordingJournal()
        let spotter = ScriptedSpotter()
        let session = makeSession(stt: stt, llm: llm, journal: journal, clock: clock) {
            $0.startsListening = false
            $0.wakeWord = WakeWordGate(spotter: spotter, preRoll: 0.3, followUp: 4)
        }
        #expect(session.configuration.rules.listenTimeout == .seconds(4), "the follow-up is the listen timeout")
        try await session.setGate(.permissionGranted, open: true)
        try await session.setGate(.audioReady, open: true)
        try await session.arm()

        // Speech before the phrase: heard by the spotter only.
        for frame in TestAudio.frames(TestAudio.speech(2) + TestAudio.silence(1.5)) { try await session.append(frame) }
        #expect(await session.state == .armed)
        #expect(await spotter.heard == 56_000)
        #expect(await stt.received.isEmpty)
        #expect(await llm.requests.isEmpty)
        #expect(await journal.entries.isEmpty)

        // The phrase: listening starts, its listen timeout (the follow-up) set.
        for frame in Self.phrase() { try await session.append(frame) }
        #expect(await session.state == .listening)
        await clock.waitForSleepers()
        #expect(clock.sleepers == 1)

        // The follow-up passes with no speech: back to waiting for the phrase, the spotter afresh.
        let updates = await session.updates()
        clock.advance(by: .seconds(4))
        for await update in updates {
            if case .transition(.listening, .armed) = update { break }
        }
        #expect(await session.state == .armed)
        #expect(await spotter.resets == 1)
        let before = await spotter.heard
        for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { try await session.append(frame) }
        #expect(await spotter.heard == before + 40_000)
        #expect(await stt.received.isEmpty, "speech after the follow-up is not transcribed")

        // The phrase again, then a question: answered, and only it.
        for frame in Self.phrase() { try await session.append(frame) }
        #expect(await session.state == .listening)
        for frame in TestAudio.frames(TestAudio.speech(1) + TestAudio.silence(1.5)) { try await session.append(frame) }
        await clock.waitForSleepers()
        var waited = 0
        while await journal.entries.count < 2, waited < 200 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        let received = await stt.received
        #expect(received.count == 1)
        // The question's second of tone and none of the speech before the phrase: the pre-roll
        // (0.3 s) held only silence and the phrase.
        let voiced = Double(received.first?.samples.filter { abs($0) > 0.05 }.count ?? 0) / 16_000
        #expect(voiced > 0.7 && voiced <= 1.0, "\(voiced) s of tone in \(received.map(\.duration)) s transcribed")
        #expect(await journal.entries.map(\.text) == ["What time is it?", "It is noon."])
        await session.close()
    }

    @Test("audio that simply arrives starts listening without a wake word, and waits for the phrase with one; a tap is never gated")
    func listenUnlessAwaiting() async throws {
        for gated in [false, true] {
            let session = makeSession(llm: ScriptedLanguageModel(replies: [])) {
                $0.startsListening = false
                if gated { $0.wakeWord = WakeWordGate(spotter: ScriptedSpotter(), preRoll: 0.3, followUp: 4) }
            }
            try await session.listenUnlessAwaitingWakeWord()
            #expect(await session.state == .idle, "not armed: nothing to start")
            try await session.setGate(.permissionGranted, open: true)
            try await session.setGate(.audioReady, open: true)
            try await session.arm()
            try await session.listenUnlessAwaitingWakeWord()
            #expect(await session.state == (gated ? .armed : .listening))
            try await session.listenUnlessAwaitingWakeWord()
            #expect(await session.state == (gated ? .armed : .listening), "twice is the same as once")
            if gated {
                try await session.startListening(.user)
                #expect(await session.state == .listening, "a tap starts listening with a wake word too")
            }
            await session.close()
        }
    }

    @Test("without a wake word, run starts listening at once (nothing changes)")
    func offByDefault() async throws {
        let session = makeSession(llm: ScriptedLanguageModel(replies: [["Yes."]]))
        #expect(session.configuration.wakeWord == nil)
        #expect(session.configuration.rules.listenTimeout == nil)
        let turns = try await session.run(TestAudio.stream(TestAudio.speech(1) + TestAudio.silence(1.5)))
        #expect(turns.count == 1)
        await session.close()
    }
}
