import Foundation
import ParleyCore
import ParleyTesting
import Synchronization
import Testing

@Suite("Tools: definitions, the toolbox and the spoken tool loop")
struct ToolBoxTests {
    struct WeatherArguments: Decodable, Sendable { var city: String }
    struct Weather: Encodable, Sendable {
        var city: String
        var celsius: Int
    }

    static let cityOnly = JSONSchema.object([.init("city", .string(minLength: 1))])

    func weatherBox(timeout: Duration = .seconds(10)) throws -> ToolBox {
        var box = try ToolBox()
        try box.register(name: "get_weather", description: "Weather in a city.", parameters: Self.cityOnly, timeout: timeout) {
            (arguments: WeatherArguments) in Weather(city: arguments.city, celsius: 21)
        }
        return box
    }

    @Test("definitions: names and object schemas are checked; choices and requirements follow")
    func definitions() throws {
        #expect(throws: ToolDefinitionError.invalidName("bad name")) { try ToolDefinition(name: "bad name") }
        #expect(throws: ToolDefinitionError.parametersNotObject(tool: "f")) { try ToolDefinition(name: "f", parameters: ["type": "string"]) }
        let tool = try ToolDefinition(name: "get_weather", schema: Self.cityOnly)
        #expect(tool.problems(with: #"{"city":"Oslo"}"#).isEmpty)
        #expect(!tool.problems(with: #"{"town":"Oslo"}"#).isEmpty)
        #expect(tool.problems(with: "{oops").first?.contains("not JSON") == true)
        var request = ChatRequest(messages: [.user("hi")], tools: [tool])
        #expect(request.requirements == [.tools])
        request.toolChoice = .none
        #expect(request.requirements.isEmpty && request.callableTools.isEmpty)
        request.messages.append(.tool(callID: "c", content: "x"))
        #expect(request.requirements == [.tools])
        var box = try ToolBox()
        try box.register(Tool(definition: tool) { _ in "" })
        #expect(throws: ToolDefinitionError.duplicateName("get_weather")) { try box.register(Tool(definition: tool) { _ in "" }) }
    }

    @Test("a typed handler gets decoded arguments and its result goes back as JSON")
    func typedHandler() async throws {
        let results = try await weatherBox().run([ToolCall(id: "call_1", name: "get_weather", arguments: #"{"city":"Oslo"}"#)])
        #expect(
            results == [
                ToolResult(
                    call: results[0].call, content: #"{"celsius":21,"city":"Oslo"}"#, isError: false,
                    milliseconds: results[0].milliseconds)
            ])
        #expect(results[0].message == .tool(callID: "call_1", name: "get_weather", content: #"{"celsius":21,"city":"Oslo"}"#))
    }

    @Test("unknown tools, invalid arguments, a throwing handler and an oversized result are error results, not crashes")
    func failures() async throws {
        var box = try weatherBox()
        box.resultLimit = 10
        try box.register(Tool(definition: try ToolDefinition(name: "broken")) { _ in throw ToolFailure("the calendar is offline") })
        try box.register(Tool(definition: try ToolDefinition(name: "chatty")) { _ in String(repeating: "x", count: 11) })
        let results = await box.run([
            ToolCall(id: "1", name: "nope", arguments: "{}"),
            ToolCall(id: "2", name: "get_weather", arguments: #"{"city": 3}"#),
            ToolCall(id: "3", name: "broken", arguments: ""),
            ToolCall(id: "4", name: "chatty", arguments: "{}"),
        ])
        #expect(results.map(\.isError) == [true, true, true, true])
        #expect(results[0].content.contains("no tool named \"nope\""))
        #expect(results[1].content.contains("not valid"))
        #expect(results[2].content == "The tool failed: the calendar is offline")
        #expect(results[3].content.contains("over the 10-byte limit"))
    }

    @Test("parallel calls run at the same time; a slow one times out on its own")
    func parallelAndTimeout() async throws {
        let clock = ManualClock()
        let arrived = Mutex(0)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        var box = try ToolBox()
        // Each waits until both have started: run one after the other, they would never finish.
        for name in ["first", "second"] {
            try box.register(
                Tool(definition: try ToolDefinition(name: name)) { _ in
                    if arrived.withLock({
                        $0 += 1; return $0
                    }) == 2 {
                        open.finish()
                    }
                    for await _ in gate {}
                    return name
                })
        }
        try box.register(
            Tool(definition: try ToolDefinition(name: "slow"), timeout: .seconds(2)) { _ in
                try await Task.sleep(for: .seconds(3600))
                return "never"
            })
        let done = Mutex(false)
        let running = Task {
            defer { done.withLock { $0 = true } }
            return await box.run(
                [
                    ToolCall(id: "a", name: "first", arguments: ""), ToolCall(id: "b", name: "second", arguments: ""),
                    ToolCall(id: "c", name: "slow", arguments: ""),
                ], clock: clock)
        }
        // Time passes only once both quick calls have met: the slow one's timeout then ends it.
        while !done.withLock({ $0 }) {
            if arrived.withLock({ $0 }) == 2, clock.sleepers > 0 { clock.advance(by: .seconds(2)) }
            await Task.yield()
        }
        let results = await running.value
        #expect(results.map(\.content) == ["first", "second", "The tool did not answer within 2 s."])
        #expect(results.map(\.isError) == [false, false, true])
    }

    @Test("cancelling the caller (barge-in) cancels the calls still running")
    func cancellation() async throws {
        let clock = ManualClock()
        var box = try ToolBox()
        try box.register(
            Tool(definition: try ToolDefinition(name: "wait")) { _ in
                try await Task.sleep(for: .seconds(3600))
                return "done"
            })
        let running = Task { await box.run([ToolCall(id: "a", name: "wait", arguments: "")], clock: clock) }
        while clock.sleepers < 1 { await Task.yield() }
        running.cancel()
        let results = await running.value
        #expect(results.map(\.content) == ["The call was cancelled."])
    }

    @Test("a spoken reply runs the model's call, says something while the tool is slow, and speaks the answer")
    func spokenToolRound() async throws {
        let clock = ManualClock()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        var box = try ToolBox()
        try box.register(name: "get_weather", description: "Weather.", parameters: Self.cityOnly) { (arguments: WeatherArguments) in
            for await _ in gate {}
            return Weather(city: arguments.city, celsius: 21)
        }
        let call = ToolCall(id: "call_9", name: "get_weather", arguments: #"{"city":"Oslo"}"#)
        let model = ScriptedToolModel(turns: [.calls([call], text: "Let me look."), .text(["It is 21 degrees ", "in Oslo."])])
        let voice = ToneTextToSpeech()
        let speaker = ReplySpeaker(llm: model, tts: voice, tools: box)
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
        let reply = Task { try await speaker.speak(ChatRequest(messages: [.user("Weather in Oslo?")]), to: output, clock: clock) }
        // The acknowledgement's timer and the tool's timeout sleep on the clock; the
        // acknowledgement is synthesized before the timer starts, and played when it fires.
        while clock.sleepers < 2 { await Task.yield() }
        clock.advance(by: .milliseconds(700))
        while clock.sleepers > 1 { await Task.yield() }  // the timer has fired; the tool still runs
        for _ in 0..<50 { await Task.yield() }
        open.finish()
        let outcome = try await reply.value
        #expect(outcome.spoken.sentences.map(\.text) == ["Let me look.", "One moment.", "It is 21 degrees", "in Oslo."])
        #expect(await voice.spoken.filter { $0 == "One moment." }.count == 1, "synthesized once")
        #expect(outcome.text == "Let me look. It is 21 degrees in Oslo.")
        #expect(
            outcome.toolExchange == [
                .assistant("Let me look.", toolCalls: [call]),
                .tool(callID: "call_9", name: "get_weather", content: #"{"celsius":21,"city":"Oslo"}"#),
            ])
        let second = try #require(await model.requests.last)
        #expect(second.messages.suffix(2) == outcome.toolExchange)
        #expect(second.tools.map(\.name) == ["get_weather"])
    }

    /// A model that answers after a tool's result only once `words` lets it: how long it takes to
    /// read the call and result before its first word.
    actor SlowReader: LanguageModelProvider {
        nonisolated let identity = ProviderIdentity(name: "slow-reader", isLocal: true)
        nonisolated let capabilities = LanguageModelCapabilities(tools: true)
        let words: AsyncStream<Void>
        init(words: AsyncStream<Void>) { self.words = words }
        nonisolated func availability() async -> Availability { .ready }
        nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
            .producing { continuation in
                for await _ in self.words {}
                continuation.yield(.text("It is 21 degrees in Oslo."))
                continuation.yield(.finished(.stop, Usage(outputTokens: 6)))
            }
        }
    }

    @Test("after a cued call, the acknowledgement is spoken while the model is still reading the result, and never after its words")
    func quietAfterCuedCall() async throws {
        for slow in [true, false] {
            let clock = ManualClock()
            var box = try weatherBox()
            box.cue("get_weather", when: { $0.contains("Oslo") }, arguments: { _ in ["city": "Oslo"] })
            let (words, speak) = AsyncStream.makeStream(of: Void.self)
            let voice = ToneTextToSpeech()
            let speaker = ReplySpeaker(llm: SlowReader(words: words), tts: voice, tools: box)
            let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
            let reply = Task { try await speaker.speak(ChatRequest(messages: [.user("Weather in Oslo?")]), to: output, clock: clock) }
            // The acknowledgement is synthesized before the model reads the result, whether or
            // not it is said.
            for _ in 0..<1000 where await !voice.spoken.contains("One moment.") { await Task.yield() }
            if slow {
                // Time passes while the model reads: the acknowledgement's timer fires, and its
                // audio (made before) is played.
                for _ in 0..<100 where await (output.heardAudio?.duration ?? 0) == 0 {
                    clock.advance(by: .milliseconds(100))
                    for _ in 0..<10 { await Task.yield() }
                }
            }
            speak.finish()
            let outcome = try await reply.value
            clock.advance(by: .seconds(5))  // a timer left behind would speak now
            for _ in 0..<50 { await Task.yield() }
            let played = outcome.spoken.sentences.map(\.text)
            #expect(played == (slow ? ["One moment."] : []) + ["It is 21 degrees", "in Oslo."], "\(played)")
            #expect(await voice.spoken == ["One moment.", "It is 21 degrees", "in Oslo."])
            #expect(outcome.text == "It is 21 degrees in Oslo.")
        }
    }

    @Test("the last round may not call tools: the model must answer in words")
    func boundedRounds() async throws {
        let call = ToolCall(id: "c", name: "get_weather", arguments: #"{"city":"Oslo"}"#)
        let model = ScriptedToolModel(turns: [.calls([call]), .calls([call]), .text(["Done."])])
        var speaker = ReplySpeaker(llm: model, tts: ToneTextToSpeech(), tools: try weatherBox())
        speaker.toolRounds = 2
        speaker.acknowledgement = nil
        let outcome = try await speaker.speak(ChatRequest(messages: [.user("?")]), to: RecordingOutput(clock: ContinuousClock(), realtime: false))
        let requests = await model.requests
        #expect(requests.map(\.toolChoice) == [.auto, .none])
        #expect(outcome.toolResults.count == 2)
    }
}
