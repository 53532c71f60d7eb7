import ParleyCore
import Testing

@Suite("The decision to call a tool, before a reply's first token")
struct CallDecisionTests {
    static let weather = try! ToolDefinition(name: "get_weather", schema: .object([.init("city", .string(minLength: 1))]))

    @Test(
        "the score is the probability of opening a call times that of naming a declared tool; at or above the threshold the reply calls",
        arguments: [
            (0.24, 0.9999, CallDecision.Verdict.call),  // "What's the weather like in Paris?" on the default model
            (0.046, 0.9999, .call),  // "How many yen is 50 euros?": a tool question it would rather answer
            (0.074, 0.39, .answer),  // "Thank you, that's all for now.": would open, but names no tool
            (0.036, 1, .call),  // the threshold itself calls
            (0.035, 1, .answer),
            (0, 1, .answer),
        ])
    func verdicts(opening: Double, naming: Double, verdict: CallDecision.Verdict) {
        let decision = CallDecision()
        let evidence = CallDecision.Evidence(opening: opening, naming: naming)
        #expect(evidence.score == opening * naming)
        #expect(decision.verdict(on: evidence) == verdict)
    }

    @Test("probabilities and thresholds are kept within 0…1")
    func clamping() {
        let evidence = CallDecision.Evidence(opening: 1.5, naming: -0.2)
        #expect(evidence.opening == 1 && evidence.naming == 0 && evidence.score == 0)
        let decision = CallDecision(threshold: 3, nextCallThreshold: -1)
        #expect(decision.threshold == 1 && decision.nextCallThreshold == 0)
        #expect(decision.verdict(on: .init(opening: 1, naming: 1)) == .call)
        #expect(CallDecision(threshold: 0).verdict(on: .init(opening: 0, naming: 0)) == .call)
    }

    @Test("after a call, another is made only when opening one on the next line is likely enough")
    func nextCall() {
        let decision = CallDecision()
        #expect(decision.callsAgain(opening: 7.4e-5))  // after "Let It Be", when a timer was asked for too
        #expect(!decision.callsAgain(opening: 4.8e-6))  // after the only song asked for
        #expect(decision.callsAgain(opening: CallDecision.calibratedNextCallThreshold))
    }

    @Test("the decision is for a free choice on the user's words: not a forced call, not none, not a reply to results")
    func applies() {
        let question = [ChatMessage.user("Will it rain in Oslo?")]
        #expect(CallDecision.applies(to: ChatRequest(messages: question, tools: [Self.weather])))
        #expect(!CallDecision.applies(to: ChatRequest(messages: question)))
        #expect(!CallDecision.applies(to: ChatRequest(messages: question, tools: [Self.weather], toolChoice: .none)))
        #expect(!CallDecision.applies(to: ChatRequest(messages: question, tools: [Self.weather], toolChoice: .required)))
        #expect(!CallDecision.applies(to: ChatRequest(messages: question, tools: [Self.weather], toolChoice: .function("get_weather"))))
        let call = ToolCall(id: "call_1", name: "get_weather", arguments: #"{"city": "Oslo"}"#)
        let answered = question + [.assistant(toolCalls: [call]), .tool(callID: "call_1", name: "get_weather", content: #"{"rain": true}"#)]
        #expect(!CallDecision.applies(to: ChatRequest(messages: answered, tools: [Self.weather])))
    }
}
