import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// What providers declare beyond answering, read by the runtime and the server instead of
/// casting: who stands in a chain, who would answer now, how a chain fails over, and what a
/// provider that answers alone declares by default.
@Suite("Providers declare their roles; chains report their members")
struct ProviderDeclarationTests {
    let clock = ManualClock()

    func chain(_ providers: [any LanguageModelProvider]) -> LanguageModelChain<ManualClock> {
        LanguageModelChain(providers: providers, health: ProviderHealth(clock: clock), clock: clock)
    }

    @Test("a provider alone is its own member and answerer, runs off device, and neither prefills nor scores turns")
    func alone() async {
        let model = ScriptedLanguageModel(replies: [["Hi."]])
        let request = ChatRequest(messages: [.user("Hi")])
        #expect(model.members(for: request).map(\.identity) == [model.identity])
        #expect(await model.answerer().identity == model.identity)
        #expect(!model.runsOnDevice && model.promptPrefiller == nil && model.turnPredictor == nil)
        #expect(model.failover(for: request) == nil)
    }

    @Test("a chain's members are its providers; it would answer with its first ready one; it fails over to the rest")
    func chained() async throws {
        let down = FaultyLanguageModel(name: "down", pieces: ["x"], availability: .missingKey(variable: "X_API_KEY"))
        let up = ScriptedLanguageModel(name: "up", replies: [["From the rest."]])
        let last = ScriptedLanguageModel(name: "last", replies: [["Last."]])
        let models = chain([down, up, last])
        let request = ChatRequest(messages: [.user("Hi")])
        #expect(models.members(for: request).map(\.identity) == [down.identity, up.identity, last.identity])
        #expect(await models.answerer().identity == up.identity)
        let failover = try #require(models.failover(for: request))
        #expect(failover.firstOutput == models.timeouts.firstOutput)
        let rest = failover.dropping(1)
        #expect(rest.members(for: request).map(\.identity) == [up.identity, last.identity])
        #expect(try await rest.completeText(request).text == "From the rest.")
        // Nothing ready: the chain itself answers (and says why it cannot).
        #expect(await chain([down]).answerer().identity == chain([down]).identity)
    }

    @Test("the image reader passes the declarations of the model a request goes to: the seeing one for images")
    func imageReading() async {
        let base = chain([ScriptedLanguageModel(name: "text", replies: [])])
        let seeing = ScriptedLanguageModel(name: "eyes", replies: [], supportsImages: true)
        let reading = ImageReadingLanguageModel(base, seeing: seeing, reader: FixedTextReader(text: ""))
        let text = ChatRequest(messages: [.user("Hi")])
        let picture = ChatRequest(messages: [
            ChatMessage(role: .user, parts: [.text("What is this?"), .image(data: TestImages.onePixelPNG, mimeType: "image/png")])
        ])
        #expect(reading.members(for: text).map(\.identity) == [base.providers[0].identity])
        #expect(reading.members(for: picture).map(\.identity) == [seeing.identity])
        #expect(reading.failover(for: text) != nil && reading.failover(for: picture) == nil)
        #expect(await reading.answerer().identity == base.providers[0].identity)
    }

    @Test("a transcriber chain's members are its providers and it would transcribe with the first ready one; a voice chain's members are its voices")
    func speech() async {
        let first = ScriptedSpeechToText(transcripts: ["one"])
        let stt = SpeechToTextChain(providers: [first], health: ProviderHealth(clock: clock))
        #expect(stt.members.map(\.identity) == [first.identity])
        #expect(await stt.answerer().identity == first.identity)
        #expect(await first.answerer().identity == first.identity && first.members.count == 1)
        let voice = ToneTextToSpeech()
        let tts = TextToSpeechChain(providers: [voice], health: ProviderHealth(clock: clock))
        #expect(tts.members.map(\.identity) == [voice.identity] && voice.members.map(\.identity) == [voice.identity])
    }
}
