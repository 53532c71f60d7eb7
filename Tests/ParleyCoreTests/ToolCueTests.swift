import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// A toolbox's cues: the user's words that plainly want a tool make a reply whose choice is
/// `auto` begin with a call to it, once; the model answers from the result.
@Suite("Tool cues")
struct ToolCueTests {
    struct Query: Decodable, Sendable { var query: String }

    static func box() throws -> ToolBox {
        var box = try ToolBox()
        try box.register(
            name: "search_notes", description: "Search the notes.",
            parameters: .object([.init("query", .string(minLength: 1))])
        ) { (arguments: Query) in "Notes on \(arguments.query): Friday." }
        box.cue("search_notes") { $0.lowercased().contains("my notes") }
        return box
    }

    @Test("the cued tool is called on the first round, then the model answers in words; its own arguments are used")
    func forcedOnce() async throws {
        let call = ToolCall(id: "c1", name: "search_notes", arguments: #"{"query":"field trip"}"#)
        let model = ScriptedToolModel(turns: [.calls([call]), .text(["It is on Friday."])])
        let outcome = try await ToolLoop(llm: model, toolbox: try Self.box())
            .run(ChatRequest(messages: [.user("What do my notes say about the field trip?")]), clock: ContinuousClock())
        #expect(outcome.reply.text == "It is on Friday.")
        #expect(outcome.results.map(\.content) == ["Notes on field trip: Friday."])
        let requests = await model.requests
        #expect(requests.map(\.toolChoice) == [.function("search_notes"), .none])
    }

    @Test("no cue: words that do not match, a choice the caller set, or a last message that is not the user's")
    func leftAlone() throws {
        let box = try Self.box()
        #expect(box.cuedChoice(for: ChatRequest(messages: [.user("What is the capital of France?")])) == nil)
        #expect(box.cuedChoice(for: ChatRequest(messages: [.user("my notes?")], toolChoice: .none)) == nil)
        #expect(box.cuedChoice(for: ChatRequest(messages: [.user("my notes?")], toolChoice: .required)) == nil)
        let afterResult = ChatRequest(messages: [.user("my notes?"), .tool(callID: "c1", name: "search_notes", content: "…")])
        #expect(box.cuedChoice(for: afterResult) == nil)
        #expect(box.cuedChoice(for: ChatRequest(messages: [.user("What do my notes say?")])) == .function("search_notes"))
        var removed = box
        removed.remove(named: "search_notes")
        #expect(removed.cuedChoice(for: ChatRequest(messages: [.user("What do my notes say?")])) == nil)
    }

    @Test("a cue with arguments calls the tool before the model writes; the model's one round answers from it")
    func calledFirst() async throws {
        var box = try Self.box()
        box.remove(named: "search_notes")
        try box.register(
            name: "search_notes", description: "Search the notes.",
            parameters: .object([.init("query", .string(minLength: 1))])
        ) { (arguments: Query) in "Notes on \(arguments.query): Friday." }
        box.cue("search_notes", when: { $0.contains("my notes") }, arguments: { _ in .object(["query": "trip"]) })
        let model = ScriptedToolModel(turns: [.text(["It is on Friday."])])
        let outcome = try await ToolLoop(llm: model, toolbox: box)
            .run(ChatRequest(messages: [.user("What do my notes say about the trip?")]), clock: ContinuousClock())
        #expect(outcome.reply.text == "It is on Friday.")
        #expect(outcome.results.map(\.content) == ["Notes on trip: Friday."])
        #expect(outcome.exchange.count == 2 && outcome.exchange.first?.toolCalls.first?.arguments == #"{"query":"trip"}"#)
        let requests = await model.requests
        #expect(requests.count == 1)
        #expect(requests.first?.toolChoice == ToolChoice.none)
        #expect(requests.first?.messages.last?.text == "Notes on trip: Friday.")
        #expect(box.cuedChoice(for: ChatRequest(messages: [.user("my notes")])) == nil)
    }
}
