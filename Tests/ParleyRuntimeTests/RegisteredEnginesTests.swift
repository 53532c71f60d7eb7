import Foundation
import ParleyCore
import ParleyRuntime
import ParleyTesting
import Testing

/// The seam another platform's engines plug into: a runtime whose on-device speech to text,
/// language model and speech synthesis are providers registered in its catalog (as Apple's
/// are in an app), with no llama.cpp, whisper.cpp or espeak-ng behind them.
@Suite("Registered on-device engines")
struct RegisteredEnginesTests {
    @Test("a conversation runs on registered providers; no engine model is read and nothing is fetched")
    func conversationOnRegisteredProviders() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-registered-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let catalog = ProviderCatalog(entries: [
            ProviderEntry(
                capability: .speechToText, name: "platform-stt", placement: .onDevice, remedy: "none",
                factory: .speechToText { _ in ScriptedSpeechToText(transcripts: ["what is the capital of France"]) }),
            ProviderEntry(
                capability: .languageModel, name: "platform-llm", placement: .onDevice, remedy: "none",
                factory: .languageModel { _ in ScriptedLanguageModel(name: "platform-llm", replies: [["Paris", " is the capital."]]) }),
            ProviderEntry(
                capability: .textToSpeech, name: "platform-tts", placement: .onDevice, remedy: "none",
                factory: .textToSpeech { _ in ToneTextToSpeech() }),
        ])
        // A data folder with no models at all, and a language model path that does not exist:
        // touching an engine would fail or fetch.
        let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) && $0.key != "PARLEY_HOME" }
        let settings = RuntimeSettings(
            values: environment.merging([
                "PARLEY_HOME": home.path, "PARLEY_DATABASE": home.appendingPathComponent("parley.sqlite").path,
                "PARLEY_LLM_MODEL": home.appendingPathComponent("absent.gguf").path,
            ]) { $1 })
        let runtime = Runtime(settings: settings, catalog: catalog)
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
        let conversation = try await runtime.makeConversation(output: output)
        let turn = try #require(try await conversation.session.send(text: "What is the capital of France?"))
        #expect(turn.reply == "Paris is the capital.")
        #expect(turn.providers.llm.contains("platform-llm"), "\(turn.providers)")
        #expect(turn.replyAudioDuration > 0)
        await conversation.session.close()
        // Only the conversation database was written; no model was looked for or fetched.
        let written = try FileManager.default.contentsOfDirectory(atPath: home.path).filter { !$0.hasPrefix("parley.sqlite") }
        #expect(written.isEmpty || written == ["audio"], "\(written)")
    }
}
