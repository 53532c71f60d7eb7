import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("The conversation state machine")
struct ConversationStateMachineTests {
    typealias Machine = ConversationStateMachine<ManualClock.Instant>
    let clock = ManualClock()

    /// A machine with its gates open, armed and listening.
    func listening(_ configuration: Machine.Configuration = .init()) -> Machine {
        var machine = Machine(configuration: configuration)
        _ = machine.handle(.setGate(.permissionGranted, open: true))
        _ = machine.handle(.setGate(.audioReady, open: true))
        _ = machine.handle(.arm)
        _ = machine.handle(.startListening(.user, at: clock.now))
        return machine
    }

    func speaking(_ configuration: Machine.Configuration = .init()) -> Machine {
        var machine = listening(configuration)
        _ = machine.handle(.speechStarted(at: clock.now))
        _ = machine.handle(.speechEnded(at: clock.now))
        _ = machine.handle(.transcribed("hello", at: clock.now))
        _ = machine.handle(.replyAudioStarted)
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
        let before = machine
        switch machine.handle(event) {
        case .success(let transition): Issue.record("\(event) was accepted: \(transition)")
        case .failure(let rejection):
            #expect(rejection.reason.contains(fragment), "\(rejection.reason)")
            #expect(machine.state == before.state)
        }
    }

    @Test("a whole turn: idle → armed → listening → thinking → speaking → listening, with each action")
    func wholeTurn() {
        var machine = Machine()
        #expect(machine.state == .idle)
        _ = accept(&machine, .setGate(.permissionGranted, open: true))
        _ = accept(&machine, .setGate(.audioReady, open: true))
        #expect(accept(&machine, .arm) == .init(from: .idle, to: .armed, action: .openAudio))
        #expect(accept(&machine, .startListening(.user, at: clock.now)) == .init(from: .armed, to: .listening, action: .none))
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .listening, to: .listening, action: .beginUtterance))
        #expect(machine.userIsSpeaking)
        #expect(accept(&machine, .speechEnded(at: clock.now)) == .init(from: .listening, to: .thinking, action: .transcribe))
        #expect(machine.awaitsTranscript)
        #expect(
            accept(&machine, .transcribed("What is the capital of France?", at: clock.now))
                == .init(from: .thinking, to: .thinking, action: .saveUserTurnAndReply("What is the capital of France?")))
        #expect(accept(&machine, .replyAudioStarted) == .init(from: .thinking, to: .speaking, action: .startPlayback))
        #expect(
            accept(&machine, .replyFinished(at: clock.now))
                == .init(from: .speaking, to: .listening, action: .finishReply(listenTimeout: nil)))
        #expect(!machine.userIsSpeaking)
    }

    @Test("arming needs every required gate open, and names the closed ones")
    func gates() {
        var machine = Machine()
        refuse(&machine, .arm, because: "audioReady, permissionGranted")
        _ = accept(&machine, .setGate(.permissionGranted, open: true))
        refuse(&machine, .arm, because: "gate not open: audioReady")
        _ = accept(&machine, .setGate(.audioReady, open: true))
        #expect(accept(&machine, .arm)?.to == .armed)
        refuse(&machine, .arm, because: "Only an idle conversation")
    }

    @Test("a host may require fewer gates")
    func fewerGates() {
        var machine = Machine(configuration: .init(requiredGates: [.audioReady]))
        _ = accept(&machine, .setGate(.audioReady, open: true))
        #expect(accept(&machine, .arm)?.to == .armed)
    }

    @Test("an incidental event (a scroll) never starts listening")
    func incidentalTrigger() {
        var machine = Machine(configuration: .init(requiredGates: []))
        _ = accept(&machine, .arm)
        refuse(&machine, .startListening(.incidental, at: clock.now), because: "deliberate user action")
        #expect(machine.state == .armed)
    }

    @Test("listening cannot start twice, while answering, before arming, or after an error")
    func startListeningRejected() {
        var idle = Machine()
        refuse(&idle, .startListening(.user, at: clock.now), because: "Arm the conversation")
        var machine = listening()
        refuse(&machine, .startListening(.user, at: clock.now), because: "Already listening")
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .speechEnded(at: clock.now))
        refuse(&machine, .startListening(.user, at: clock.now), because: "Still answering")
        _ = accept(&machine, .failed("disk full"))
        refuse(&machine, .startListening(.user, at: clock.now), because: "Reset the conversation")
    }

    @Test("speech events out of place are rejected")
    func speechRejected() {
        var machine = Machine()
        refuse(&machine, .speechStarted(at: clock.now), because: "Not listening")
        refuse(&machine, .speechEnded(at: clock.now), because: "Not listening")
        machine = listening()
        refuse(&machine, .speechEnded(at: clock.now), because: "No speech has started")
        _ = accept(&machine, .speechStarted(at: clock.now))
        refuse(&machine, .speechStarted(at: clock.now), because: "already started")
    }

    @Test("replies and transcripts out of place are rejected")
    func replyRejected() {
        var machine = listening()
        refuse(&machine, .transcribed("x", at: clock.now), because: "No utterance")
        refuse(&machine, .replyAudioStarted, because: "No reply is being prepared")
        refuse(&machine, .replyFinished(at: clock.now), because: "No reply is in progress")
    }

    @Test("an empty transcript discards the utterance and listens again")
    func emptyTranscript() {
        var machine = listening()
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .speechEnded(at: clock.now))
        #expect(
            accept(&machine, .transcribed("  ", at: clock.now)) == .init(from: .thinking, to: .listening, action: .discardUtterance(rescheduleTimeout: nil)))
    }

    @Test("barge-in while speaking cancels the reply, stops playback and saves it as interrupted")
    func bargeInWhileSpeaking() {
        var machine = speaking()
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .speaking, to: .listening, action: .bargeIn(.duringPlayback)))
        #expect(machine.userIsSpeaking)
    }

    @Test("speech while thinking cancels the reply before anything was played")
    func bargeInWhileThinking() {
        var machine = listening()
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .speechEnded(at: clock.now))
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .thinking, to: .listening, action: .bargeIn(.beforePlayback)))
    }

    @Test("with barge-in off, speech during a reply is heard and ignored")
    func bargeInOff() {
        var machine = speaking(.init(allowsBargeIn: false))
        #expect(accept(&machine, .speechStarted(at: clock.now)) == .init(from: .speaking, to: .speaking, action: .none))
    }

    @Test("push-to-talk returns to armed after the reply")
    func pushToTalk() {
        var machine = speaking(.init(continuous: false))
        #expect(accept(&machine, .replyFinished(at: clock.now))?.to == .armed)
    }

    @Test("listening gives up after the timeout on the test clock, not before, and not while the user speaks")
    func listenTimeout() {
        var machine = Machine(configuration: .init(listenTimeout: .seconds(5)))
        _ = machine.handle(.setGate(.permissionGranted, open: true))
        _ = machine.handle(.setGate(.audioReady, open: true))
        _ = machine.handle(.arm)
        let deadline = clock.now.advanced(by: .seconds(5))
        #expect(accept(&machine, .startListening(.user, at: clock.now))?.action == .scheduleListenTimeout(deadline))
        clock.advance(by: .seconds(4))
        #expect(accept(&machine, .listenTimeoutExpired(at: clock.now)) == .init(from: .listening, to: .listening, action: .none))
        clock.advance(by: .seconds(1))
        #expect(accept(&machine, .listenTimeoutExpired(at: clock.now)) == .init(from: .listening, to: .armed, action: .listenTimedOut))

        // Speech clears the deadline.
        _ = accept(&machine, .startListening(.user, at: clock.now))
        _ = accept(&machine, .speechStarted(at: clock.now))
        clock.advance(by: .seconds(60))
        #expect(accept(&machine, .listenTimeoutExpired(at: clock.now)) == .init(from: .listening, to: .listening, action: .none))
    }

    @Test("a reply that ends reschedules the listening timeout from its end")
    func timeoutAfterReply() {
        var machine = speaking(.init(listenTimeout: .seconds(3)))
        clock.advance(by: .seconds(10))
        let transition = accept(&machine, .replyFinished(at: clock.now))
        #expect(transition?.action == .finishReply(listenTimeout: clock.now.advanced(by: .seconds(3))))
    }

    @Test("stop from each active state undoes what that state started")
    func stop() {
        var armed = Machine(configuration: .init(requiredGates: []))
        _ = armed.handle(.arm)
        #expect(accept(&armed, .stop) == .init(from: .armed, to: .idle, action: .shutDown(cutting: nil)))
        var machine = speaking()
        #expect(accept(&machine, .stop) == .init(from: .speaking, to: .idle, action: .shutDown(cutting: .duringPlayback)))
        refuse(&machine, .stop, because: "Already idle")
    }

    @Test("closing a required gate mid-conversation shuts it down; an optional gate does not")
    func gateClosed() {
        var machine = listening()
        #expect(accept(&machine, .setGate(.permissionGranted, open: false)) == .init(from: .listening, to: .idle, action: .shutDown(cutting: nil)))
        var relaxed = Machine(configuration: .init(requiredGates: [.audioReady]))
        _ = relaxed.handle(.setGate(.audioReady, open: true))
        _ = relaxed.handle(.arm)
        #expect(accept(&relaxed, .setGate(.permissionGranted, open: false))?.to == .armed)
    }

    @Test("a failure while thinking cancels the reply; only reset leaves the error state")
    func failureAndReset() {
        var machine = listening()
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .speechEnded(at: clock.now))
        #expect(accept(&machine, .failed("no model")) == .init(from: .thinking, to: .error("no model"), action: .shutDown(cutting: .beforePlayback)))
        refuse(&machine, .failed("again"), because: "Already in the error state")
        refuse(&machine, .arm, because: "Only an idle conversation")
        #expect(accept(&machine, .reset)?.to == .idle)
        refuse(&machine, .reset, because: "Only an error can be reset")
    }

    @Test("typed text is answered from idle, armed or listening, and the conversation returns there")
    func typedTurn() {
        var idle = Machine()
        #expect(accept(&idle, .typed("Hello")) == .init(from: .idle, to: .thinking, action: .saveUserTurnAndReply("Hello")))
        refuse(&idle, .transcribed("stray", at: clock.now), because: "No utterance is waiting")
        #expect(accept(&idle, .replyFinished(at: clock.now)) == .init(from: .thinking, to: .idle, action: .finishReply(listenTimeout: nil)))

        var armed = Machine(configuration: .init(requiredGates: []))
        _ = armed.handle(.arm)
        _ = accept(&armed, .typed("Hello"))
        _ = accept(&armed, .replyAudioStarted)
        // Speech over a reply to typed text is not a barge-in: nobody was listening.
        refuse(&armed, .speechStarted(at: clock.now), because: "Not listening")
        #expect(accept(&armed, .replyFinished(at: clock.now))?.to == .armed)

        var listening = listening(.init(listenTimeout: .seconds(5)))
        #expect(accept(&listening, .typed("Hello"))?.to == .thinking)
        #expect(listening.listenDeadline == nil)
        #expect(
            accept(&listening, .replyFinished(at: clock.now))
                == .init(from: .thinking, to: .listening, action: .finishReply(listenTimeout: clock.now.advanced(by: .seconds(5)))))
    }

    @Test("typed text is refused when empty, while the user speaks, while answering, and after an error")
    func typedRejected() {
        var machine = listening()
        refuse(&machine, .typed("  "), because: "no text to send")
        _ = accept(&machine, .speechStarted(at: clock.now))
        refuse(&machine, .typed("Hello"), because: "The user is speaking")
        _ = accept(&machine, .speechEnded(at: clock.now))
        refuse(&machine, .typed("Hello"), because: "Still answering")
        _ = accept(&machine, .failed("disk full"))
        refuse(&machine, .typed("Hello"), because: "Reset the conversation")
    }

    @Test("stop listening returns to armed; mid-utterance it ends the utterance, which is answered, and then waits armed")
    func stopListening() {
        var machine = listening(.init(listenTimeout: .seconds(5)))
        #expect(accept(&machine, .stopListening) == .init(from: .listening, to: .armed, action: .stopListening))
        #expect(machine.listenDeadline == nil)
        refuse(&machine, .stopListening, because: "Not listening")

        _ = accept(&machine, .startListening(.user, at: clock.now))
        _ = accept(&machine, .speechStarted(at: clock.now))
        #expect(accept(&machine, .stopListening) == .init(from: .listening, to: .thinking, action: .transcribe))
        _ = accept(&machine, .transcribed("Hello", at: clock.now))
        #expect(accept(&machine, .replyFinished(at: clock.now)) == .init(from: .thinking, to: .armed, action: .finishReply(listenTimeout: nil)))

        // Released with nothing recognisable: back to armed at once.
        _ = accept(&machine, .startListening(.user, at: clock.now))
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .stopListening)
        #expect(accept(&machine, .transcribed("", at: clock.now)) == .init(from: .thinking, to: .armed, action: .discardUtterance(rescheduleTimeout: nil)))
    }

    @Test("the host cancels a reply: before playback nothing is saved, during playback what was heard is")
    func cancelReply() {
        var playing = speaking(.init(listenTimeout: .seconds(2)))
        #expect(
            accept(&playing, .cancelReply(at: clock.now))
                == .init(from: .speaking, to: .listening, action: .cancelReply(.duringPlayback, listenTimeout: clock.now.advanced(by: .seconds(2)))))
        refuse(&playing, .cancelReply(at: clock.now), because: "No reply is in progress")

        var preparing = listening(.init(continuous: false))
        _ = accept(&preparing, .speechStarted(at: clock.now))
        _ = accept(&preparing, .speechEnded(at: clock.now))
        _ = accept(&preparing, .transcribed("Hello", at: clock.now))
        #expect(
            accept(&preparing, .cancelReply(at: clock.now))
                == .init(from: .thinking, to: .armed, action: .cancelReply(.beforePlayback, listenTimeout: nil)))
        // The cancelled reply's late events are refused.
        refuse(&preparing, .replyAudioStarted, because: "No reply is being prepared")
        refuse(&preparing, .replyFinished(at: clock.now), because: "No reply is in progress")
    }

    @Test("a listen timeout replaced by a later one does not fire early")
    func staleTimeout() {
        var machine = listening(.init(listenTimeout: .seconds(5)))
        _ = accept(&machine, .speechStarted(at: clock.now))
        _ = accept(&machine, .speechEnded(at: clock.now))
        clock.advance(by: .seconds(3))
        // Nothing recognised: listening resumes with a new deadline, 5 s from now.
        #expect(accept(&machine, .transcribed("", at: clock.now))?.action == .discardUtterance(rescheduleTimeout: clock.now.advanced(by: .seconds(5))))
        clock.advance(by: .seconds(2))
        #expect(accept(&machine, .listenTimeoutExpired(at: clock.now))?.action == Machine.Action.none)
        clock.advance(by: .seconds(3))
        #expect(accept(&machine, .listenTimeoutExpired(at: clock.now))?.action == .listenTimedOut)
    }
}
