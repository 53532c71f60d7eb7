import ParleyCore
import Synchronization
import Testing
import VoiceAppModel

/// Records what the view model asked of the conversation.
final class RecordedControls: VoiceControls {
    let calls = Mutex<[String]>([])
    func startListening() async throws { calls.withLock { $0.append("start") } }
    func stopListening() async throws { calls.withLock { $0.append("stop") } }
    func cancelReply() async throws { calls.withLock { $0.append("cancel") } }
    var recorded: [String] { calls.withLock { $0 } }
}

/// A turn that answered `reply`.
func turn(_ reply: String, interrupted: Bool = false) -> TurnResult {
    var result = TurnResult(
        segment: SpeechSegment(start: 0, end: 16_000, sampleRate: 16_000), transcript: "hello", reply: reply,
        replyAudioDuration: 1, providers: .init(vad: "energy", stt: "stt", llm: "llm", tts: "tts"),
        timings: .init(), usage: Usage())
    result.interrupted = interrupted
    return result
}

@Suite("the voice app's view model")
@MainActor
struct VoiceViewModelTests {
    @Test("the orb follows the conversation: idle, listening with the level, thinking, speaking, and a failure")
    func orb() async {
        let model = VoiceViewModel(controls: RecordedControls())
        #expect(model.orb == .idle)
        await model.apply(.transition(from: .idle, to: .armed))
        #expect(model.orb == .idle)
        await model.apply(.transition(from: .armed, to: .listening))
        await model.apply(.audioLevel(0.4))
        #expect(model.orb == .listening(level: 0.4))
        await model.apply(.audioLevel(3))
        #expect(model.orb == .listening(level: 1))
        await model.apply(.transition(from: .listening, to: .thinking))
        await model.apply(.audioLevel(0.5))
        #expect(model.orb == .thinking && model.orb.label == "Thinking")
        await model.apply(.transition(from: .thinking, to: .speaking))
        #expect(model.orb == .speaking)
        await model.apply(.transition(from: .speaking, to: .error("the recognizer stopped")))
        #expect(model.orb == .failed("the recognizer stopped") && model.notice == "the recognizer stopped")
    }

    @Test("hold to talk: press listens, release answers; pressing over a reply cuts it short; a loop resuming is stopped")
    func holdToTalk() async {
        let controls = RecordedControls()
        let model = VoiceViewModel(controls: controls)
        await model.pressTalk()
        await model.pressTalk()  // a second press while held does nothing
        #expect(model.isHolding)
        await model.releaseTalk()
        #expect(controls.recorded == ["start", "stop"] && !model.isHolding)
        await model.apply(.transition(from: .thinking, to: .speaking))
        await model.pressTalk()
        #expect(controls.recorded == ["start", "stop", "cancel", "start"])
        await model.releaseTalk()
        // The conversation listens again after a reply by itself: not in this mode.
        await model.apply(.transition(from: .speaking, to: .listening))
        #expect(controls.recorded.suffix(2) == ["stop", "stop"])
        // While held, listening is what the user asked for.
        await model.pressTalk()
        await model.apply(.transition(from: .thinking, to: .listening))
        #expect(controls.recorded.last == "start")
    }

    @Test("hands-free: switching on listens, a reply that ends in waiting listens again, switching back stops")
    func handsFree() async {
        let controls = RecordedControls()
        let model = VoiceViewModel(controls: controls)
        await model.setMode(.handsFree)
        #expect(controls.recorded == ["start"] && model.mode == .handsFree)
        await model.pressTalk()  // no talk button in this mode
        #expect(controls.recorded == ["start"])
        await model.apply(.transition(from: .armed, to: .listening))
        await model.apply(.transition(from: .listening, to: .thinking))
        await model.apply(.transition(from: .thinking, to: .speaking))
        await model.apply(.transition(from: .speaking, to: .armed))
        #expect(controls.recorded == ["start", "start"])
        // A loop that listens again by itself needs nothing.
        await model.apply(.transition(from: .speaking, to: .listening))
        #expect(controls.recorded == ["start", "start"])
        await model.setMode(.holdToTalk)
        #expect(controls.recorded == ["start", "start", "stop"])
    }

    @Test("the transcript: a provisional line grows and settles, the reply streams in, an interrupted reply is marked")
    func transcript() async {
        let model = VoiceViewModel(controls: RecordedControls())
        await model.apply(.partialTranscript("what is"))
        await model.apply(.partialTranscript("what is the capital"))
        #expect(model.transcript.map(\.text) == ["what is the capital"] && model.transcript[0].isPending)
        await model.apply(.finalTranscript("What is the capital of France?"))
        await model.apply(.replyText("Paris"))
        await model.apply(.replyText(" is the capital."))
        #expect(model.transcript.map(\.text) == ["What is the capital of France?", "Paris is the capital."])
        #expect(!model.transcript[0].isPending && model.transcript[1].isPending)
        await model.apply(.turn(turn("Paris is the capital.")))
        #expect(!model.transcript[1].isPending && !model.transcript[1].wasInterrupted)
        await model.apply(.finalTranscript("And of Spain?"))
        await model.apply(.replyText("Madrid"))
        await model.apply(.turn(turn("Madrid", interrupted: true)))
        #expect(model.transcript.map(\.speaker) == [.user, .assistant, .user, .assistant])
        #expect(model.transcript[3].wasInterrupted && Set(model.transcript.map(\.id)).count == 4)
        await model.apply(.rejected("not listening now"))
        #expect(model.notice == "not listening now")
        model.dismissNotice()
        #expect(model.notice == nil)
    }

    @Test("a backchannel over the reply leaves no line of its own, and the reply reads on as one")
    func backchannel() async {
        let model = VoiceViewModel(controls: RecordedControls())
        await model.apply(.finalTranscript("What is the largest ocean?"))
        await model.apply(.replyText("The largest ocean"))
        await model.apply(.transition(from: .speaking, to: .paused))
        #expect(model.orb == .listening(level: 0))
        await model.apply(.partialTranscript("mm-hmm"))
        await model.apply(.replyText(" is the Pacific."))
        await model.apply(.replyResumed)
        #expect(model.transcript.map(\.text) == ["What is the largest ocean?", "The largest ocean is the Pacific."])
        #expect(model.transcript[1].isPending)
    }

    @Test("the settings sheet: per capability in chain order, the first that can serve is in use, each says why")
    func providers() {
        func status(
            _ capability: String, _ name: String, _ placement: String, configured: Bool = true, available: Bool,
            reason: String = "ready", remedy: String? = nil
        ) -> ProviderStatus {
            ProviderStatus(
                capability: capability, name: name, provider: name, placement: placement, configured: configured,
                available: available, reason: reason, remedy: remedy)
        }
        let sections = ProviderSection.sections([
            status("LLM", "openai", "cloud", configured: false, available: false, reason: "not configured (set OPENAI_API_KEY)", remedy: "set OPENAI_API_KEY"),
            status(
                "LLM", "apple", "on-device", available: false,
                reason: "unsupported: Apple Intelligence is off: turn it on in Settings › Apple Intelligence & Siri", remedy: "turn on Apple Intelligence"),
            status("LLM", "local", "on-device", available: true),
            status("TTS", "apple", "on-device", available: true),
            status("TTS", "espeak-ng", "on-device", available: true),
        ])
        #expect(sections.map(\.title) == ["Language model", "Voice"])
        let llm = sections[0].rows
        #expect(llm.map(\.inUse) == [false, false, true])
        #expect(llm[0].why == "Not set up: set OPENAI_API_KEY.")
        #expect(
            llm[1].why == "Unavailable: Apple Intelligence is off: turn it on in Settings › Apple Intelligence & Siri. To use it: turn on Apple Intelligence.")
        #expect(llm[2].why == "In use, on this device.")
        #expect(sections[1].rows[1].why == "Ready, on this device; used if apple fails.")
    }

    @Test("playback heard: the time since the reply began, at most what was scheduled; a pause is not heard")
    func timeline() {
        var timeline = PlaybackTimeline()
        #expect(timeline.heard(at: 5) == 0)
        timeline.schedule(1.0, at: 10)
        timeline.schedule(0.5, at: 10.2)
        #expect(timeline.heard(at: 10.5) == 0.5 && timeline.remaining(at: 10.5) == 1.0)
        #expect(timeline.heard(at: 20) == 1.5)
        // The player ran dry at 11.5; the next sentence plays from 12.
        timeline.schedule(1.0, at: 12)
        #expect(timeline.heard(at: 12.25) == 1.75 && timeline.heard(at: 30) == 2.5)
        timeline.begin()
        #expect(timeline.heard(at: 30) == 0 && timeline.scheduled == 0)
    }
}
