import ParleyCore
import Testing

/// The on-device tool writer's rules, without an engine: every event in every state, the
/// illegal ones refused with nothing changed, and whole replies (text, a call, calls, a call
/// written without the marker, the decision's two verdicts).
@Suite("Tool writer machine")
struct ToolWriterMachineTests {
    typealias Machine = ToolWriterMachine
    typealias Action = ToolWriterMachine.Action
    typealias Event = ToolWriterMachine.Event

    static let tools = ["get_weather", "set_timer"]
    static let decision = CallDecision(threshold: 0.036, nextCallThreshold: 1.9e-5)
    static let weatherCall = #"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#

    static func token(_ text: String, at position: Int = 0) -> Event {
        .token(Array(text.utf8), position: position)
    }

    /// Feeds `events`, requiring each to be taken; returns every action in order.
    @discardableResult
    static func feed(_ machine: inout Machine, _ events: [Event]) throws -> [Action] {
        var actions: [Action] = []
        for event in events { actions += try machine.handle(event).get() }
        return actions
    }

    /// Feeds `text` a character at a time, as tokens at positions from `position`.
    @discardableResult
    static func write(_ machine: inout Machine, _ text: String, from position: Int = 10) throws -> [Action] {
        try feed(&machine, text.enumerated().map { token(String($1), at: position + $0) })
    }

    static func texts(_ actions: [Action]) -> String {
        actions.map { if case .text(let text) = $0 { text } else { "" } }.joined()
    }

    static func calls(_ actions: [Action]) -> [ToolCall] {
        actions.compactMap { if case .call(let call) = $0 { call } else { nil } }
    }

    /// A machine in each state, by name, reached through events only.
    static func machine(in state: String) throws -> Machine {
        switch state {
        case "decidingOpening":
            return Machine(start: .decide(decision), toolNames: tools, single: false)
        case "decidingNaming":
            var machine = Machine(start: .decide(decision), toolNames: tools, single: false)
            try feed(&machine, [.callOpening(0.5)])
            return machine
        case "text(opening)":
            return Machine(start: .text, toolNames: tools, single: false)
        case "text(started)":
            var machine = Machine(start: .text, toolNames: tools, single: false)
            try write(&machine, "Hi")
            return machine
        case "call":
            return Machine(start: .call, toolNames: tools, single: false)
        case "decidingNextCall":
            var machine = Machine(start: .decide(decision), toolNames: tools, single: false)
            try feed(&machine, [.callOpening(0.5), .callNaming(0.9)])
            try write(&machine, weatherCall)
            return machine
        case "afterCall":
            var machine = Machine(start: .call, toolNames: tools, single: false)
            try write(&machine, weatherCall)
            return machine
        case "done":
            var machine = Machine(start: .text, toolNames: tools, single: false)
            try feed(&machine, [.endOfGeneration])
            return machine
        case "failed":
            var machine = Machine(start: .call, toolNames: tools, single: false)
            try write(&machine, #"{"x": 1}"#)
            return machine
        default:
            Issue.record("no state \(state)")
            return Machine(start: .text, toolNames: [], single: false)
        }
    }

    static let states = [
        "decidingOpening", "decidingNaming", "text(opening)", "text(started)", "call", "decidingNextCall",
        "afterCall", "done", "failed",
    ]
    static let events: [(String, Event)] = [
        ("callOpening", .callOpening(0.5)), ("callNaming", .callNaming(0.9)), ("nextCallOpening", .nextCallOpening(0.5)),
        ("token", token(" ", at: 99)), ("endOfGeneration", .endOfGeneration), ("limit", .limit), ("cancelled", .cancelled),
    ]

    /// Which events each state takes; every other one is refused.
    static let legal: [String: Set<String>] = [
        "decidingOpening": ["callOpening", "cancelled"],
        "decidingNaming": ["callNaming", "cancelled"],
        "text(opening)": ["token", "endOfGeneration", "limit", "cancelled"],
        "text(started)": ["token", "endOfGeneration", "limit", "cancelled"],
        "call": ["token", "endOfGeneration", "limit", "cancelled"],
        "decidingNextCall": ["nextCallOpening", "cancelled"],
        "afterCall": ["token", "endOfGeneration", "limit", "cancelled"],
        "done": [],
        "failed": [],
    ]

    @Test("the states are reached as named")
    func statesReached() throws {
        #expect(try Self.machine(in: "decidingOpening").state == .decidingOpening)
        #expect(try Self.machine(in: "decidingNaming").state == .decidingNaming(opening: 0.5))
        #expect(try Self.machine(in: "text(opening)").state == .text(started: false, startPosition: nil))
        #expect(try Self.machine(in: "text(started)").state == .text(started: true, startPosition: nil))
        #expect(try Self.machine(in: "call").state == .call(index: 0, name: nil, arguments: ""))
        #expect(try Self.machine(in: "decidingNextCall").state == .decidingNextCall)
        #expect(try Self.machine(in: "afterCall").state == .afterCall)
        #expect(try Self.machine(in: "done").state == .done(.stop))
        guard case .failed = try Self.machine(in: "failed").state else {
            Issue.record("not failed")
            return
        }
    }

    @Test(
        "every event in every state: the illegal ones are refused and change nothing, the legal ones are taken",
        arguments: states)
    func everyEvent(in name: String) throws {
        for (eventName, event) in Self.events {
            var machine = try Self.machine(in: name)
            let before = machine.state
            let result = machine.handle(event)
            if Self.legal[name]?.contains(eventName) == true {
                #expect((try? result.get()) != nil, "\(name) refused \(eventName): \(result)")
            } else {
                guard case .failure(let rejection) = result else {
                    Issue.record("\(name) took \(eventName): \(result)")
                    continue
                }
                #expect(rejection.state == before && machine.state == before, "\(name), \(eventName)")
                #expect(!rejection.reason.isEmpty && rejection.description.contains(rejection.reason))
            }
        }
    }

    @Test("cancelling ends any reply under way with .cancelled, calls made or not, and nothing held goes out")
    func cancelling() throws {
        for name in Self.states where name != "done" && name != "failed" {
            var machine = try Self.machine(in: name)
            #expect(try machine.handle(.cancelled).get() == [.finish(.cancelled)], "\(name)")
            #expect(machine.state == .done(.cancelled) && machine.finishReason == .cancelled && machine.isOver)
        }
        var holding = Machine(start: .text, toolNames: Self.tools, single: false)
        #expect(try Self.write(&holding, "Hi <tool").isEmpty == false)
        #expect(try holding.handle(.cancelled).get() == [.finish(.cancelled)])
    }

    @Test("deciding: a low opening answers at once; a high one measures the naming; the verdict calls or answers")
    func deciding() throws {
        var low = Machine(start: .decide(Self.decision), toolNames: Self.tools, single: false)
        #expect(low.sampling == .free)
        let answered = try low.handle(.callOpening(0.01)).get()
        #expect(answered == [.decided(CallDecision.Evidence(opening: 0.01, naming: 0), .answer)])
        #expect(low.state == .text(started: false, startPosition: nil))
        // The first token of an answer may not open a call; the next ones may.
        #expect(low.sampling == .freeWithoutCallOpening)
        try Self.feed(&low, [Self.token("Paris")])
        #expect(low.sampling == .free)

        var high = Machine(start: .decide(Self.decision), toolNames: Self.tools, single: false)
        #expect(try high.handle(.callOpening(0.4)).get() == [.measureNaming])
        #expect(high.state == .decidingNaming(opening: 0.4))
        let called = try high.handle(.callNaming(0.5)).get()
        #expect(called == [.keepCallOpening, .beginCall, .decided(CallDecision.Evidence(opening: 0.4, naming: 0.5), .call)])
        #expect(high.state == .call(index: 0, name: nil, arguments: "") && high.sampling == .call)

        var unnamed = Machine(start: .decide(Self.decision), toolNames: Self.tools, single: false)
        try Self.feed(&unnamed, [.callOpening(0.4)])
        let notNamed = try unnamed.handle(.callNaming(0.05)).get()
        #expect(notNamed == [.keepPrompt, .decided(CallDecision.Evidence(opening: 0.4, naming: 0.05), .answer)])
        #expect(unnamed.sampling == .freeWithoutCallOpening)
        // Probabilities are clamped, as the evidence is.
        var clamped = Machine(start: .decide(Self.decision), toolNames: Self.tools, single: false)
        #expect(try clamped.handle(.callOpening(7)).get() == [.measureNaming])
        #expect(clamped.state == .decidingNaming(opening: 1))
    }

    @Test("text streams as it comes, a split character whole; held text that may open a call or a stop goes out at the end")
    func text() throws {
        var machine = Machine(start: .text, toolNames: Self.tools, stops: ["STOP"], single: false)
        var actions = try Self.write(&machine, "Hello")
        #expect(machine.writesFreeText)
        // "é" split over two tokens comes out once whole.
        actions += try Self.feed(&machine, [.token([0xC3], position: 20), .token([0xA9, 0x20, 0x3C], position: 21)])
        #expect(Self.texts(actions) == "Helloé ")
        actions = try machine.handle(.endOfGeneration).get()
        #expect(actions == [.text("<"), .finish(.stop)])
        #expect(machine.finishReason == .stop)

        var limited = Machine(start: .text, toolNames: Self.tools, single: false)
        try Self.write(&limited, "Sure, ST")
        #expect(try limited.handle(.limit).get().last == .finish(.length))

        var stopped = Machine(start: .text, toolNames: Self.tools, stops: ["\n"], single: false)
        actions = try Self.write(&stopped, "One.")
        actions += try Self.feed(&stopped, [Self.token("\n<", at: 30)])
        // What follows the stop sequence (even held) never goes out.
        #expect(Self.texts(actions) == "One." && actions.last == .finish(.stop) && stopped.isOver)
        #expect(!stopped.writesFreeText)
    }

    @Test("the marker in text opens a call: the text before it goes out, the call streams, closes, and the model may go on")
    func markedCall() throws {
        var machine = Machine(start: .text, toolNames: Self.tools, single: false)
        var actions = try Self.write(&machine, "Let me check. <tool_call>\n")
        #expect(Self.texts(actions) == "Let me check. ")
        #expect(actions.contains(.beginCall) && machine.sampling == .call && !machine.writesFreeText)
        actions = try Self.write(&machine, #"{"name": "get_weather", "arguments": {"city": "#, from: 40)
        guard case .call(0, "get_weather"?, let partial) = machine.state else {
            Issue.record("\(machine.state)")
            return
        }
        #expect(partial.hasPrefix("{\"city\""))
        actions += try Self.write(&machine, #""Oslo"}}"#, from: 90)
        let deltas = actions.compactMap { if case .callDelta(let delta) = $0 { delta } else { nil } }
        #expect(deltas.first?.name == "get_weather" && deltas.first?.id?.hasPrefix("call_") == true)
        #expect(deltas.map(\.arguments).joined() == #"{"city": "Oslo"}"#)
        let call = try #require(Self.calls(actions).first)
        #expect(call.name == "get_weather" && call.arguments == #"{"city": "Oslo"}"# && call.id == deltas.first?.id)
        #expect(actions.suffix(2) == [.call(call), .closeCall])
        #expect(machine.state == .afterCall && machine.calls == 1 && machine.sampling == .free)
        // Whitespace, then the end: the reply ends with its calls.
        #expect(try machine.handle(Self.token("\n")).get().isEmpty)
        #expect(try machine.handle(.endOfGeneration).get() == [.finish(.toolCalls)])
    }

    @Test("after a call: another marked call, another bare one, or words that end the reply; the limit ends it with its calls")
    func afterCall() throws {
        var marked = try Self.machine(in: "afterCall")
        let again = try Self.write(&marked, "\n<tool_call>\n", from: 60)
        #expect(again.first == .beginCall && marked.state == .call(index: 1, name: nil, arguments: ""))
        try Self.write(&marked, #"{"name": "set_timer", "arguments": {"minutes": 9}}"#, from: 80)
        #expect(marked.calls == 2 && marked.state == .afterCall)

        var bare = try Self.machine(in: "afterCall")
        #expect(try bare.handle(Self.token("\n {", at: 61)).get() == [.reopenAsCall(from: 61), .beginCall])
        #expect(bare.state == .call(index: 1, name: nil, arguments: ""))

        var words = try Self.machine(in: "afterCall")
        #expect(try words.handle(Self.token("Done")).get() == [.finish(.toolCalls)])

        var limited = try Self.machine(in: "afterCall")
        #expect(try limited.handle(.limit).get() == [.finish(.toolCalls)])
    }

    @Test("a single call ends the reply; a call cut short by the limit is no call; an unreadable call fails")
    func callEnds() throws {
        var single = Machine(start: .call, toolNames: Self.tools, single: true)
        let actions = try Self.write(&single, Self.weatherCall)
        #expect(actions.suffix(2) == [.closeCall, .finish(.toolCalls)] && single.finishReason == .toolCalls)

        var cut = Machine(start: .call, toolNames: Self.tools, single: false)
        try Self.write(&cut, #"{"name": "set_timer", "argu"#)
        #expect(try cut.handle(.limit).get() == [.finish(.length)] && cut.calls == 0)

        var ended = Machine(start: .call, toolNames: Self.tools, single: false)
        #expect(try ended.handle(.endOfGeneration).get() == [.finish(.stop)])

        var unreadable = Machine(start: .call, toolNames: Self.tools, single: false)
        let failed = try Self.write(&unreadable, #"{"x": 1}"#)
        guard case .fail(let error) = failed.last, case .failed(error) = unreadable.state else {
            Issue.record("\(failed)")
            return
        }
        #expect(unreadable.isOver && unreadable.finishReason == nil)
    }

    @Test("a call written without the marker (bare JSON, a tool's name as a function) is taken back from its start and opened")
    func unmarkedCall() throws {
        var bare = Machine(start: .text, toolNames: Self.tools, single: false)
        // Whitespace first: the start is held from the first token's position.
        #expect(try bare.handle(Self.token(" ", at: 50)).get().isEmpty)
        #expect(bare.state == .text(started: false, startPosition: 50) && !bare.writesFreeText)
        #expect(try bare.handle(Self.token("{\"", at: 51)).get() == [.reopenAsCall(from: 50), .beginCall])
        #expect(bare.state == .call(index: 0, name: nil, arguments: ""))

        var named = Machine(start: .text, toolNames: Self.tools, single: false)
        let actions = try Self.write(&named, "set_timer(", from: 70)
        #expect(actions == [.reopenAsCall(from: 70), .beginCall])

        // Text that only starts alike goes out whole once it is clearly text.
        var alike = Machine(start: .text, toolNames: Self.tools, single: false)
        #expect(Self.texts(try Self.write(&alike, "set the timer")) == "set the timer")
        // A start still held at the end goes out.
        var held = Machine(start: .text, toolNames: Self.tools, single: false)
        try Self.write(&held, "set_ti")
        #expect(try held.handle(.endOfGeneration).get() == [.text("set_ti"), .finish(.stop)])
    }

    @Test("a reply the decision opened as a call: the next call is decided on the line after each, then the reply ends")
    func nextCalls() throws {
        var machine = try Self.machine(in: "decidingNextCall")
        #expect(machine.calls == 1)
        #expect(try machine.handle(.nextCallOpening(1e-4)).get() == [.openNextCall, .beginCall])
        #expect(machine.state == .call(index: 1, name: nil, arguments: ""))
        let actions = try Self.write(&machine, #"{"name": "get_weather", "arguments": {"city": "Rome"}}"#)
        #expect(actions.suffix(2) == [.closeCall, .measureNextCall] && machine.state == .decidingNextCall)
        #expect(try machine.handle(.nextCallOpening(4.8e-6)).get() == [.finish(.toolCalls)])
        #expect(machine.calls == 2 && machine.finishReason == .toolCalls)
    }

    @Test("a call the model must make starts in the call, with no decision and the grammar from its first token")
    func forced() throws {
        let machine = Machine(start: .call, toolNames: Self.tools, single: true)
        #expect(machine.state == .call(index: 0, name: nil, arguments: "") && machine.sampling == .call && machine.tokens == 0)
    }
}
