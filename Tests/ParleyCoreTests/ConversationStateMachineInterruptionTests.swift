import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("The conversation state machine: interruptions that are meant")
struct ConversationStateMachineInterruptionTests {
    typealias Machine = ConversationStateMachine<ManualClock.Instant>
    let clock = ManualClock()
    static let rules = ConversationRules(listenTimeout: .seconds(5), interruption: InterruptionRules(language: "en"))

    /// A machine speaking a reply to "hello".
    func speaking(_ rules: ConversationRules = rules) -> Machine {
        var machine = thinking(rules)
        _ = machine.handle(.replyAudioStarted)
        return machine
    }

    /// A machine preparing its reply to "hello" (nothing played yet).
    func thinking(_ rules: ConversationRules = rules) -> Machine {
        var machine = Machine(configuration: rules)
        _ = machine.handle(.setGate(.permissionGranted, open: true))
        _ = machine.handle(.setGate(.audioReady, open: true))
        _ = machine.handle(.arm)
        _ = machine.handle(.startListening(.user, at: clock.now))
        _ = machine.handle(.speechStarted(at: clock.now))
        _ = machine.handle(.speechEnded(at: clock.now))
        _ = machine.handle(.transcribed("hello", at: clock.now))
        return machine
    }

    /// A machine whose reply is paused by speech over it.
    func paused(from rules: ConversationRules = rules, playing: Bool = true) -> Machine {
        var machine = playing ? speaking(rules) : thinking(rules)
        _ = machine.handle(.speechStarted(at: clock.now))
        return machine
    }

    func accept(_ machine: inout Machine, _ event: Machine.Event) -> Machine.Transition? {
        guard case .success(let transition) = machine.handle(event) else {
            Issue.record("\(event) was rejected in \(machine.state)")
            return nil
        }
        return transition
    }

    func refuse(_ machine: inout Machine, _ event: Machine.Event, because fragment: String) {
        let before = machine.state
        switch machine.handle(event) {
        case .success(let transition): Issue.record("\(event) was accepted: \(transition)")
        case .failure(let rejection):
            #expect(rejection.reason.contains(fragment), "\(rejection.reason)")
            #expect(machine.state == before)
        }
    }

    @Test("speech over a reply pauses it, while speaking or thinking, and the listen timeout waits")
    func speechPauses() {
        var machine = speaking()
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .speaking, to: .paused, action: .pauseReply))
        #expect(machine.userIsSpeaking)
        #expect(machine.listenDeadline == nil)
        var preparing = thinking()
        #expect(accept(&preparing, .speechStarted(at: clock.now)) == .init(from: .thinking, to: .paused, action: .pauseReply))
    }

    @Test("a short noise resumes the reply without transcribing it")
    func shortNoiseResumes() {
        var machine = paused()
        _ = accept(&machine, .speechLasted(.milliseconds(250)))
        clock.advance(by: .seconds(1.5))
        #expect(accept(&machine, .speechEnded(at: clock.now)) == .init(from: .paused, to: .speaking, action: .resumeReply))
        #expect(!machine.userIsSpeaking)
        #expect(!machine.awaitsTranscript)
        // The reply plays on to its end; listening starts then, with its timeout.
        clock.advance(by: .seconds(2))
        #expect(
            accept(&machine, .replyFinished(at: clock.now))
                == .init(
                    from: .speaking, to: .listening,
                    action: .finishReply(listenTimeout: clock.now.advanced(by: .seconds(5)))))
    }

    @Test("a long backchannel is transcribed, then resumes the reply", arguments: ["Mm-hmm.", "Yeah, yeah.", "okay", "Uh-huh, right.", "", "  "])
    func backchannelResumes(_ words: String) {
        var machine = paused()
        _ = accept(&machine, .speechLasted(.milliseconds(600)))
        #expect(accept(&machine, .partiallyTranscribed(words))?.action == Machine.Action.none)
        #expect(accept(&machine, .speechEnded(at: clock.now)) == .init(from: .paused, to: .paused, action: .transcribe))
        #expect(machine.awaitsTranscript)
        #expect(accept(&machine, .transcribed(words, at: clock.now)) == .init(from: .paused, to: .speaking, action: .resumeReply))
    }

    @Test("a reply paused before it played resumes to thinking, and its audio starts held")
    func pausedWhileThinking() {
        var machine = paused(playing: false)
        #expect(accept(&machine, .replyAudioStarted) == .init(from: .paused, to: .paused, action: .startPlayback))
        refuse(&machine, .replyAudioStarted, because: "playing already")
        #expect(accept(&machine, .speechEnded(at: clock.now))?.action == .resumeReply)
        #expect(machine.state == .speaking)
        var silent = paused(playing: false)
        #expect(accept(&silent, .speechEnded(at: clock.now)) == .init(from: .paused, to: .thinking, action: .resumeReply))
    }

    @Test("words that are meant, in speech long enough, cut the reply while the user goes on")
    func meantWordsCut() {
        var machine = paused()
        // Words first, then length: the cut waits for the length.
        #expect(accept(&machine, .partiallyTranscribed("Stop, wait"))?.action == Machine.Action.none)
        #expect(accept(&machine, .speechLasted(.milliseconds(300)))?.action == Machine.Action.none)
        #expect(accept(&machine, .speechLasted(.milliseconds(450))) == .init(from: .paused, to: .listening, action: .interruptReply(.duringPlayback)))
        #expect(machine.userIsSpeaking)
        // The utterance goes on as the user's turn.
        #expect(accept(&machine, .speechEnded(at: clock.now)) == .init(from: .listening, to: .thinking, action: .transcribe))
        #expect(
            accept(&machine, .transcribed("Stop, wait, tell me something else.", at: clock.now))?.action
                == .saveUserTurnAndReply("Stop, wait, tell me something else."))
        // Length first, then words; before playback, nothing is saved of the reply.
        var preparing = paused(playing: false)
        _ = accept(&preparing, .speechLasted(.seconds(1)))
        #expect(accept(&preparing, .partiallyTranscribed("Actually no")) == .init(from: .paused, to: .listening, action: .interruptReply(.beforePlayback)))
    }

    @Test("a final transcript that is meant cuts the reply and is answered")
    func meantTranscriptAnswered() {
        var machine = paused()
        _ = accept(&machine, .speechLasted(.seconds(1.2)))
        _ = accept(&machine, .speechEnded(at: clock.now))
        #expect(
            accept(&machine, .transcribed("Tell me something else.", at: clock.now))
                == .init(from: .paused, to: .thinking, action: .interruptAndReply(.duringPlayback, "Tell me something else.")))
        #expect(accept(&machine, .replyAudioStarted)?.to == .speaking)
    }

    @Test("words that are meant but too short resume the reply")
    func shortWordsResume() {
        var machine = paused()
        _ = accept(&machine, .speechLasted(.milliseconds(300)))
        _ = accept(&machine, .partiallyTranscribed("No"))
        #expect(machine.state == .paused)
        #expect(accept(&machine, .speechEnded(at: clock.now))?.action == .resumeReply)
    }

    @Test("the minimum length and the backchannels are configurable, per language")
    func configurable() {
        var rules = Self.rules
        rules.interruption?.minimumSpeech = .seconds(1)
        rules.interruption?.backchannels.set(["vale", "venga"], for: "es")
        rules.interruption?.language = "es"
        var machine = paused(from: rules)
        _ = accept(&machine, .speechLasted(.milliseconds(800)))
        #expect(accept(&machine, .partiallyTranscribed("Para, para"))?.action == Machine.Action.none)
        #expect(accept(&machine, .speechLasted(.seconds(1)))?.action == .interruptReply(.duringPlayback))
        var spanish = paused(from: rules)
        _ = accept(&spanish, .speechLasted(.seconds(2)))
        _ = accept(&spanish, .speechEnded(at: clock.now))
        #expect(accept(&spanish, .transcribed("Venga, vale.", at: clock.now))?.action == .resumeReply)
        // English backchannels are no backchannels in a Spanish conversation.
        var other = paused(from: rules)
        _ = accept(&other, .speechLasted(.seconds(2)))
        _ = accept(&other, .speechEnded(at: clock.now))
        #expect(accept(&other, .transcribed("Yeah.", at: clock.now))?.action == .interruptAndReply(.duringPlayback, "Yeah."))
    }

    @Test("the host can resume a paused reply")
    func hostResumes() {
        var machine = paused()
        #expect(accept(&machine, .resume) == .init(from: .paused, to: .speaking, action: .resumeReply))
        refuse(&machine, .resume, because: "No reply is paused")
        refuse(&machine, .speechLasted(.seconds(1)), because: "No reply is paused")
    }

    @Test("a reply that ends while paused leaves the speech to be answered, unless it is a backchannel")
    func replyEndsWhilePaused() {
        var machine = paused()
        #expect(accept(&machine, .replyFinished(at: clock.now)) == .init(from: .paused, to: .listening, action: .finishReply(listenTimeout: nil)))
        #expect(machine.userIsSpeaking)
        _ = accept(&machine, .speechEnded(at: clock.now))
        clock.advance(by: .seconds(1))
        #expect(accept(&machine, .transcribed("Mm-hmm.", at: clock.now))?.action == .discardUtterance(rescheduleTimeout: clock.now.advanced(by: .seconds(5))))
        var asked = paused()
        _ = accept(&asked, .speechLasted(.seconds(1)))
        _ = accept(&asked, .speechEnded(at: clock.now))
        #expect(accept(&asked, .replyFinished(at: clock.now)) == .init(from: .paused, to: .thinking, action: .finishReply(listenTimeout: nil)))
        #expect(accept(&asked, .transcribed("And the smallest?", at: clock.now))?.action == .saveUserTurnAndReply("And the smallest?"))
    }

    @Test("cancel, stop and failure cut a paused reply as far as it had come")
    func cancelStopFail() {
        var cancelled = paused()
        #expect(
            accept(&cancelled, .cancelReply(at: clock.now)) == .init(from: .paused, to: .listening, action: .cancelReply(.duringPlayback, listenTimeout: nil)))
        #expect(cancelled.userIsSpeaking)
        var stopped = paused(playing: false)
        #expect(accept(&stopped, .stop) == .init(from: .paused, to: .idle, action: .shutDown(cutting: .beforePlayback)))
        var failed = paused()
        #expect(accept(&failed, .failed("boom"))?.action == .shutDown(cutting: .duringPlayback))
        var ungated = paused()
        #expect(accept(&ungated, .setGate(.audioReady, open: false))?.action == .shutDown(cutting: .duringPlayback))
    }

    @Test("while paused, typing, listening again and push-to-talk release are refused")
    func refusedWhilePaused() {
        var machine = paused()
        refuse(&machine, .typed("hi"), because: "Still answering")
        refuse(&machine, .toolResults, because: "Still answering")
        refuse(&machine, .startListening(.user, at: clock.now), because: "Still answering")
        refuse(&machine, .stopListening, because: "paused")
        refuse(&machine, .speechStarted(at: clock.now), because: "already started")
        refuse(&machine, .transcribed("hi", at: clock.now), because: "waiting for its transcript")
    }

    @Test("without interruption rules the first speech still cuts the reply at once")
    func legacyBargeIn() {
        var machine = speaking(ConversationRules())
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .speaking, to: .listening, action: .bargeIn(.duringPlayback)))
    }
}

@Suite("Backchannels")
struct BackchannelsTests {
    @Test(
        "backchannels and noise, in each default language",
        arguments: [
            ("Mm-hmm.", "en"), ("Uh-huh", "en"), ("Yeah, yeah, okay.", "en"), ("Right.", "en"), ("I see.", "en"), ("", "en"), ("...", "en"),
            ("Mm-mm.", "en"), ("Mmhmm, hmm.", "de"), ("Sí, claro.", "es"), ("Vale", "es"), ("Ja, genau.", "de"), ("Ach so.", "de"), ("D’accord.", "fr"),
            ("Oui, je vois.", "fr"), ("Uh-uh.", "en"), ("Buh-uh.", "en"), ("Huh-uh, mm.", "en"),
        ])
    func backchannel(_ text: String, _ language: String) {
        #expect(Backchannels().contains(text, language: language))
        #expect(Backchannels().contains(text, language: nil))
    }

    @Test(
        "words that are meant",
        arguments: [
            "Stop.", "Stop, wait, tell me something else.", "Yeah, but what about Paris?", "No.", "okay okay okay okay okay okay okay", "Nuh-uh.",
            "Buh-bye.", "Uh-oh, stop.",
        ])
    func meant(_ text: String) {
        #expect(!Backchannels().contains(text, language: "en-US"))
    }
}
