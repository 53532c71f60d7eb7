import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// A chain over real wire servers: a provider that breaks off in the middle of a call leaves
/// nothing of it behind, and the next provider's whole call is delivered once.
@Suite("Tool calls through a fallback chain")
struct ToolCallChainTests {
    @Test("OpenAI cuts the stream mid-call; Ollama answers the call whole; the consumer sees one whole call, no half call")
    func cutMidCall() async throws {
        let arguments = #"{"city":"Zürich","unit":"c"}"#
        var events = [
            ToolWire.openAIChunk(["role": "assistant", "content": nil]),
            ToolWire.openAIPiece(0, id: "call_cut", name: "get_weather", ""),
        ]
        let fragments = stride(from: 0, to: arguments.count, by: 4).map { start in
            String(arguments.dropFirst(start).prefix(4))
        }
        events += fragments.prefix(fragments.count / 2).map { ToolWire.openAIPiece(0, $0) }
        let cutStream = ToolWire.openAIStream(events, size: 16, ending: .cut)
        let openAI = try await WireServer.start { recorded in
            recorded.path.hasSuffix("/models") ? .json(200, #"{"object":"list","data":[{"id":"gpt-test"}]}"#) : cutStream
        }
        defer { openAI.stop() }
        let ollama = try await WireServer.start {
            ToolWire.ollamaReply(
                $0,
                [
                    ToolWire.ollamaLine([
                        "role": "assistant", "content": "",
                        "tool_calls": [ToolWire.ollamaCall("get_weather", ["city": "Zürich", "unit": "c"])],
                    ]),
                    ToolWire.ollamaLine(["role": "assistant", "content": ""], done: true),
                ])
        }
        defer { ollama.stop() }
        let clock = ContinuousClock()
        let chain = LanguageModelChain(
            providers: [
                OpenAILanguageModel(configuration: .init(baseURL: openAI.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test")),
                OllamaLanguageModel(configuration: .init(host: ollama.baseURL, model: "llama3.2")),
            ],
            health: ProviderHealth(clock: clock), clock: clock)
        let transcript = await ToolTranscript.collect(chain, ToolWire.request())
        #expect(transcript.error == nil)
        #expect(await openAI.requests.contains { $0.path.hasSuffix("/chat/completions") }, "the first provider was tried")
        #expect(transcript.providers.map(\.name) == ["ollama"])
        #expect(transcript.calls.count == 1)
        let call = try #require(transcript.calls.first)
        #expect(call.name == "get_weather" && call.id != "call_cut")
        #expect(ToolWire.json(call.arguments) == ToolWire.json(arguments))
        #expect(transcript.deltas.allSatisfy { $0.id == nil || $0.id == call.id }, "nothing of the cut call reaches the consumer")
        #expect(transcript.streamedArguments(0) == call.arguments)
        #expect(transcript.finish == .toolCalls)
    }
}
