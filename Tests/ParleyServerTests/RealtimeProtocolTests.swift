import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyServer

/// The realtime protocol's state as a value, without a socket or a conversation, on the
/// manual clock: every client event in every state, and the conversation's updates.
@Suite("realtime protocol, as a value")
struct RealtimeProtocolTests {
    typealias Machine = RealtimeProtocol<ManualClock.Instant>
    typealias Step = Machine.Step

    static let clock = ManualClock()
    static let reply = RealtimeReply(id: "resp_1", itemID: "item_r")
    static let question = Machine.PendingMessage(itemID: "item_q", text: "What is the capital of France?", images: [])

    /// The states a connection can be in, each reached through the events that lead there.
    enum State: String, CaseIterable {
        case fresh, committing, transcribing, answered, toolOutputs, questions, replying, unavailable, draining
    }

    static func machine(in state: State, at now: ManualClock.Instant) -> Machine {
        var machine = Machine()
        switch state {
        case .fresh:
            break
        case .committing:
            _ = machine.receive(.commitAudio(hasConversation: true))
        case .transcribing:
            _ = machine.receive(.commitAudio(hasConversation: true))
            _ = machine.update(.speechStopped(itemID: "item_s"))
        case .answered:
            _ = machine.receive(.commitAudio(hasConversation: true))
            _ = machine.update(.speechStopped(itemID: "item_s"))
            _ = machine.update(.finalTranscript("hello there", cutsReply: false))
        case .toolOutputs:
            _ = machine.receive(.createToolOutput)
        case .questions:
            _ = machine.receive(.createQuestion(question))
        case .replying:
            machine.openReply(reply)
        case .unavailable:
            machine.conversationUnavailable(RealtimeProtocolError(code: "model_unavailable", message: "No model."), at: now)
        case .draining:
            machine.drain()
        }
        return machine
    }

    /// Each client event, by name, with what it gets in a state where nothing is under way.
    static func events(at now: ManualClock.Instant) -> [(name: String, event: Machine.ClientEvent, plain: Step)] {
        let speaking = Machine.ResponseContext(state: .speaking)
        return [
            ("other", .other, .proceed),
            ("append, no conversation", .appendAudio(hasConversation: false, bytes: 9_600, manualTurn: false, at: now.advanced(by: .seconds(1))), .proceed),
            ("append", .appendAudio(hasConversation: true, bytes: 9_600, manualTurn: false, at: now.advanced(by: .seconds(1))), .proceed),
            ("append, manual turn", .appendAudio(hasConversation: true, bytes: 9_600, manualTurn: true, at: now.advanced(by: .seconds(1))), .proceed),
            ("commit, no conversation", .commitAudio(hasConversation: false), .reject(Machine.emptyCommit)),
            ("commit", .commitAudio(hasConversation: true), .stopListening),
            ("clear", .clearAudio, .proceed),
            ("question", .createQuestion(question), .proceed),
            ("context", .createContext, .proceed),
            ("delete question", .deleteQuestion(itemID: "item_q"), .proceed),
            ("tool output", .createToolOutput, .proceed),
            ("response", .createResponse(.init()), .respond(.answerConversation)),
            ("response, reviewed turns", .createResponse(.init(answersTurns: false)), .respond(.answerConversation)),
            ("response, under review", .createResponse(.init(answersTurns: false, reviewing: true)), .respond(.sendHeldTranscript)),
            ("response, speaking", .createResponse(speaking), .reject(Machine.responseActive)),
            ("response, transcription session", .createResponse(.init(transcriptionOnly: true)), .reject(Machine.transcriptionSession)),
            ("cancel, nothing active", .cancelResponse(active: false), .reject(Machine.nothingToCancel)),
            ("cancel", .cancelResponse(active: true), .proceed),
            ("send transcript", .decideTranscript(.send(nil)), .review(.send(nil), transcribing: false)),
            ("discard transcript", .decideTranscript(.discard), .review(.discard, transcribing: false)),
        ]
    }

    /// Where a state's answer differs from the plain one.
    static func exceptions(_ state: State) -> [String: Step] {
        switch state {
        case .fresh, .draining:
            return [:]
        case .committing, .transcribing:
            // A transcript is on its way: the commit's reply answers response.create, and a
            // reviewed turn is sent as heard.
            return [
                "response": .respond(.alreadyAnswered),
                "response, reviewed turns": .respond(.sendHeldTranscript),
                "response, speaking": .respond(.alreadyAnswered),
                "send transcript": .review(.send(nil), transcribing: true),
                "discard transcript": .review(.discard, transcribing: true),
            ]
        case .answered:
            return [
                "response": .respond(.alreadyAnswered),
                "response, reviewed turns": .respond(.alreadyAnswered),
                "response, speaking": .respond(.alreadyAnswered),
            ]
        case .toolOutputs:
            return [
                "response": .respond(.answerToolOutputs),
                "response, reviewed turns": .respond(.answerToolOutputs),
                "response, speaking": .respond(.answerToolOutputs),
            ]
        case .questions:
            return [
                "response": .respond(.answerQuestions([question])),
                "response, reviewed turns": .respond(.answerQuestions([question])),
            ]
        case .replying:
            // The reply in progress answers it.
            return [
                "response": .respond(.alreadyAnswered),
                "response, reviewed turns": .respond(.alreadyAnswered),
                "response, speaking": .respond(.alreadyAnswered),
            ]
        case .unavailable:
            return ["append, no conversation": .ignore]
        }
    }

    @Test("every client event in every state", arguments: State.allCases)
    func everyEvent(in state: State) {
        let now = Self.clock.now
        for (name, event, plain) in Self.events(at: now) {
            var machine = Self.machine(in: state, at: now)
            let expected = state == .draining ? .reject(Machine.shuttingDown) : Self.exceptions(state)[name] ?? plain
            #expect(machine.receive(event) == expected, "\(name) in \(state)")
        }
    }

    @Test("a state's exceptions name real events")
    func exceptionsNameEvents() {
        let names = Set(Self.events(at: Self.clock.now).map(\.name))
        for state in State.allCases {
            #expect(Set(Self.exceptions(state).keys).isSubset(of: names), "\(state)")
        }
    }

    @Test("a question while a reply is sent waits: response.create is refused until the reply is done")
    func questionDuringReply() {
        var machine = Machine()
        machine.openReply(Self.reply)
        _ = machine.receive(.createQuestion(Self.question))
        #expect(machine.receive(.createResponse(.init(state: .speaking))) == .reject(Machine.responseActive))
        #expect(machine.closeReply() == Self.reply)
        #expect(machine.reply == nil)
        #expect(machine.receive(.createResponse(.init(state: .listening))) == .respond(.answerQuestions([Self.question])))
    }

    @Test("a reply's text accumulates; a second reply does not replace the open one")
    func replies() {
        var machine = Machine()
        #expect(machine.replyText("lost") == nil)
        machine.openReply(Self.reply)
        machine.openReply(RealtimeReply(id: "resp_2", itemID: "item_2"))
        _ = machine.replyText("Paris")
        #expect(machine.replyText(" is the capital.")?.text == "Paris is the capital.")
        #expect(machine.closeReply()?.id == "resp_1")
        #expect(machine.closeReply() == nil)
    }

    @Test("a commit's reply answers one response.create, and only one")
    func commitAnswersOnce() {
        var machine = Self.machine(in: .answered, at: Self.clock.now)
        #expect(machine.receive(.createResponse(.init())) == .respond(.alreadyAnswered))
        #expect(machine.receive(.createResponse(.init())) == .respond(.answerConversation))
    }

    @Test("questions are answered together, once; a deleted one is not")
    func questions() {
        var machine = Machine()
        let second = Machine.PendingMessage(itemID: "item_r", text: "And of Italy?", images: [])
        _ = machine.receive(.createQuestion(Self.question))
        _ = machine.receive(.createQuestion(second))
        #expect(machine.receive(.createResponse(.init())) == .respond(.answerQuestions([Self.question, second])))
        #expect(machine.pending.isEmpty)
        _ = machine.receive(.createQuestion(Self.question))
        _ = machine.receive(.deleteQuestion(itemID: "item_q"))
        #expect(machine.receive(.createResponse(.init())) == .respond(.answerConversation))
    }

    @Test("a commit that finds no speech is refused, and answers no response.create")
    func emptyCommit() {
        var machine = Self.machine(in: .committing, at: Self.clock.now)
        #expect(machine.update(.transition(from: .listening, to: .armed)) == [.reject(Machine.noSpeechCommitted)])
        #expect(machine.commit == .none)
        #expect(machine.receive(.createResponse(.init())) == .respond(.answerConversation))

        var refused = Self.machine(in: .committing, at: Self.clock.now)
        #expect(refused.update(.commitFoundNothing) == [.reject(Machine.emptyCommit)])
        #expect(refused.receive(.createResponse(.init())) == .respond(.answerConversation))
    }

    @Test("a turn with no words heard tells an empty transcript; one not awaited is not told")
    func transcripts() {
        var machine = Self.machine(in: .transcribing, at: Self.clock.now)
        #expect(machine.update(.transition(from: .thinking, to: .listening)) == [.tellTranscript(itemID: "item_s", text: ""), .forgetEarlyDecision])
        #expect(machine.update(.finalTranscript("late", cutsReply: false)) == [])
        var heard = Self.machine(in: .transcribing, at: Self.clock.now)
        #expect(heard.update(.finalTranscript("hello there", cutsReply: false)) == [.tellTranscript(itemID: "item_s", text: "hello there")])
        #expect(heard.update(.finalTranscript("hello there", cutsReply: false)) == [])
        // Other transitions say nothing.
        #expect(machine.update(.transition(from: .idle, to: .armed)) == [])
        #expect(machine.update(.transition(from: .thinking, to: .speaking)) == [])
    }

    @Test("a second commit while the first turn's transcript is awaited leaves it awaited")
    func secondCommit() {
        var machine = Self.machine(in: .transcribing, at: Self.clock.now)
        #expect(machine.receive(.commitAudio(hasConversation: true)) == .stopListening)
        #expect(machine.update(.commitFoundNothing) == [.reject(Machine.emptyCommit)])
        #expect(machine.transcribing)
        #expect(machine.update(.finalTranscript("hello", cutsReply: false)) == [.tellTranscript(itemID: "item_s", text: "hello")])
        #expect(!machine.transcribing)
    }

    @Test("a failure drops the commit and the awaited transcript")
    func failure() {
        var machine = Self.machine(in: .transcribing, at: Self.clock.now)
        _ = machine.receive(.commitAudio(hasConversation: true))
        #expect(machine.update(.failed) == [])
        #expect(!machine.transcribing)
        #expect(machine.update(.finalTranscript("hello", cutsReply: false)) == [])
    }

    @Test("a spoken turn: started, partial transcripts as deltas, stopped and committed, transcribed")
    func spokenTurn() {
        var machine = Machine()
        machine.openReply(Self.reply)
        // A reply cut before it was heard ends here.
        #expect(machine.update(.speechStarted(itemID: "item_1")) == [.cutReply, .tellSpeechStarted(itemID: "item_1")])
        _ = machine.closeReply()
        #expect(machine.update(.partialTranscript("hello")) == [.tellPartial(itemID: "item_1", delta: "hello", transcript: "hello")])
        #expect(machine.update(.partialTranscript("hello there")) == [.tellPartial(itemID: "item_1", delta: " there", transcript: "hello there")])
        // Not an extension of the last: the delta is the whole of it.
        #expect(machine.update(.partialTranscript("help there")) == [.tellPartial(itemID: "item_1", delta: "help there", transcript: "help there")])
        #expect(machine.update(.speechStopped(itemID: "item_unused")) == [.tellSpeechStopped(itemID: "item_1"), .commitSpeech(itemID: "item_1")])
        #expect(machine.update(.finalTranscript("hello there", cutsReply: false)) == [.tellTranscript(itemID: "item_1", text: "hello there")])
        #expect(machine.speech == nil)
        // A partial with no speech being told is not told.
        #expect(machine.update(.partialTranscript("stray")) == [])
    }

    @Test("speech over a paused reply that proves no interruption: held back, then the reply resumes")
    func backchannel() {
        var machine = Machine()
        machine.openReply(Self.reply)
        #expect(machine.update(.transition(from: .speaking, to: .paused)) == [])
        // The paused reply is not cut.
        #expect(machine.update(.speechStarted(itemID: "item_2")) == [.tellSpeechStarted(itemID: "item_2"), .tellPaused(itemID: "item_2")])
        #expect(machine.update(.speechStopped(itemID: "item_unused")) == [.tellSpeechStopped(itemID: "item_2")])
        #expect(machine.update(.finalTranscript("uh-huh", cutsReply: false)) == [])
        #expect(machine.update(.replyResumed) == [.tellResumed(itemID: "item_2", transcript: "uh-huh")])
        #expect(machine.held == .none)
        #expect(machine.speech == nil)
        #expect(machine.update(.replyResumed) == [])
        // No turn was committed: nothing awaits a transcript.
        #expect(!machine.transcribing)
    }

    @Test("speech over a paused reply that cuts it: the reply ends, the held speech is committed and told")
    func interruption() {
        var machine = Machine()
        machine.openReply(Self.reply)
        _ = machine.update(.transition(from: .speaking, to: .paused))
        _ = machine.update(.speechStarted(itemID: "item_3"))
        _ = machine.update(.speechStopped(itemID: "item_unused"))
        #expect(machine.update(.finalTranscript("stop please", cutsReply: false)) == [])
        #expect(machine.update(.replyInterrupted) == [.cutReply, .commitSpeech(itemID: "item_3"), .tellTranscript(itemID: "item_3", text: "stop please")])
        #expect(machine.held == .none)

        // Words that will cut the reply and await the client's review are told at once.
        var reviewed = Machine()
        _ = reviewed.update(.transition(from: .speaking, to: .paused))
        _ = reviewed.update(.speechStarted(itemID: "item_4"))
        _ = reviewed.update(.speechStopped(itemID: "item_unused"))
        #expect(
            reviewed.update(.finalTranscript("wait", cutsReply: true)) == [.commitSpeech(itemID: "item_4"), .tellTranscript(itemID: "item_4", text: "wait")])
    }

    @Test("a paused reply that ends or is cut makes the held speech a turn; one still paused does not")
    func pausedReplyEnds() {
        var machine = Machine()
        _ = machine.update(.transition(from: .speaking, to: .paused))
        _ = machine.update(.speechStarted(itemID: "item_5"))
        _ = machine.update(.speechStopped(itemID: "item_unused"))
        #expect(machine.update(.turnEnded) == [])
        #expect(machine.update(.transition(from: .paused, to: .listening)) == [.commitSpeech(itemID: "item_5")])
        // Its transcript was not heard yet: it is told when it comes.
        #expect(machine.update(.finalTranscript("and then", cutsReply: false)) == [.tellTranscript(itemID: "item_5", text: "and then")])

        var ended = Machine()
        _ = ended.update(.transition(from: .speaking, to: .paused))
        _ = ended.update(.speechStarted(itemID: "item_6"))
        _ = ended.update(.speechStopped(itemID: "item_unused"))
        _ = ended.update(.transition(from: .paused, to: .speaking))
        #expect(ended.update(.turnEnded) == [.commitSpeech(itemID: "item_6")])

        // Speech still going on when the pause ends is a turn like any: committed when it stops.
        var speaking = Machine()
        _ = speaking.update(.transition(from: .speaking, to: .paused))
        _ = speaking.update(.speechStarted(itemID: "item_7"))
        #expect(speaking.update(.transition(from: .paused, to: .listening)) == [])
        #expect(speaking.update(.speechStopped(itemID: "item_unused")) == [.tellSpeechStopped(itemID: "item_7"), .commitSpeech(itemID: "item_7")])
    }

    @Test("input_audio_buffer.clear forgets the speech being told")
    func clear() {
        var machine = Machine()
        _ = machine.update(.speechStarted(itemID: "item_8"))
        #expect(machine.receive(.clearAudio) == .proceed)
        #expect(machine.speech == nil)
        #expect(machine.update(.partialTranscript("gone")) == [])
    }

    @Test("audio is dropped quietly for five seconds after the conversation could not be made")
    func unavailable() async {
        let clock = ManualClock()
        var machine = Machine()
        machine.conversationUnavailable(RealtimeProtocolError(code: "model_unavailable", message: "No model."), at: clock.now)
        #expect(machine.receive(.appendAudio(hasConversation: false, bytes: 9_600, manualTurn: false, at: clock.now)) == .ignore)
        clock.advance(by: .seconds(4.9))
        #expect(machine.receive(.appendAudio(hasConversation: false, bytes: 9_600, manualTurn: false, at: clock.now)) == .ignore)
        clock.advance(by: .seconds(0.1))
        #expect(machine.receive(.appendAudio(hasConversation: false, bytes: 9_600, manualTurn: false, at: clock.now)) == .proceed)
        machine.conversationUnavailable(RealtimeProtocolError(code: "model_unavailable", message: "No model."), at: clock.now)
        machine.conversationMade()
        #expect(machine.receive(.appendAudio(hasConversation: false, bytes: 9_600, manualTurn: false, at: clock.now)) == .proceed)
    }

    @Test("audio past the limit is refused: queued and not yet heard, or held by a manual turn until its commit or clear")
    func audioLimit() {
        let now = Self.clock.now
        var machine = Machine(audioLimit: 1_000)
        #expect(machine.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: false, at: now)) == .proceed)
        machine.audioQueued(600)
        guard case .reject(let full) = machine.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: false, at: now)) else {
            Issue.record("audio past the queue's limit was taken")
            return
        }
        #expect(full.code == "input_audio_buffer_full")
        machine.audioHeard(600)
        #expect(machine.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: false, at: now)) == .proceed)

        // A manual turn holds its audio until it is committed or cleared.
        var manual = Machine(audioLimit: 1_000)
        #expect(manual.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: true, at: now)) == .proceed)
        guard case .reject(let held) = manual.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: true, at: now)) else {
            Issue.record("audio past the turn's limit was taken")
            return
        }
        #expect(held.message.contains("the turn holds"))
        #expect(manual.turnAudio == 600)
        _ = manual.receive(.commitAudio(hasConversation: true))
        #expect(manual.turnAudio == 0)
        #expect(manual.receive(.appendAudio(hasConversation: true, bytes: 600, manualTurn: true, at: now)) == .proceed)
        _ = manual.receive(.clearAudio)
        #expect(manual.turnAudio == 0)
        // No size overflows the check.
        #expect(manual.receive(.appendAudio(hasConversation: true, bytes: .max, manualTurn: true, at: now)) != .proceed)
    }
}
