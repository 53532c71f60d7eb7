import Foundation
import ParleyAppleSupport
import ParleyCore
import ParleyRuntime
import ParleyTesting
import Testing

/// A platform's own engines (Apple's, on Apple platforms) in the runtime's catalog: where they go
/// in the chains, and what the report says of them. Here with test doubles standing in for
/// Apple's engines, which only an Apple platform has.
@Suite("the platform's engines in the catalog")
struct PlatformProvidersTests {
    /// Engines named like Apple's: a language model that is off (as Apple Intelligence can be),
    /// a recognizer, and a voice.
    static let platform: [PlatformProvider] = [
        PlatformProvider(
            name: "apple", variables: ["PARLEY_SPEECH_LOCALE"], defaultModel: "system", remedy: "turn on Apple Intelligence",
            factory: .languageModel { _ in
                UnavailableLanguageModel(
                    identity: ProviderIdentity(name: "apple-foundation-models", model: "system", isLocal: true),
                    availability: AppleUnavailability.appleIntelligenceNotEnabled.availability)
            }),
        PlatformProvider(
            name: "apple", remedy: "allow speech recognition",
            factory: .speechToText { _ in ScriptedSpeechToText(transcripts: ["hello"]) }),
        PlatformProvider(name: "apple", remedy: "add a voice", factory: .textToSpeech { _ in ToneTextToSpeech() }),
    ]

    @Test("on Linux the standard catalog is as it was: no platform engine")
    func linuxHasNone() {
        #expect(!ProviderCatalog.standard.entries.contains { $0.name == "apple" })
        #expect(ProviderCatalog.standard.entries(for: .speechToText).map(\.name) == ["deepgram", "assemblyai", "openai", "moonshine", "local"])
        #expect(ProviderCatalog.standard.entries(for: .textToSpeech).map(\.name) == ["elevenlabs", "deepgram", "openai", "piper", "neural", "espeak-ng"])
        #expect(ProviderCatalog.standard.entries(for: .languageModel).map(\.name) == ["anthropic", "openai", "ollama", "local"])
    }

    @Test("each goes after the cloud and self-hosted entries and before the on-device ones, in the order given, with no setting needed")
    func placement() {
        let catalog = ProviderCatalog.standard.adding(
            platform: Self.platform + [
                PlatformProvider(name: "second-voice", remedy: "none", factory: .textToSpeech { _ in ToneTextToSpeech() })
            ])
        #expect(catalog.entries(for: .languageModel).map(\.name) == ["anthropic", "openai", "ollama", "apple", "local"])
        #expect(catalog.entries(for: .speechToText).map(\.name) == ["deepgram", "assemblyai", "openai", "apple", "moonshine", "local"])
        #expect(
            catalog.entries(for: .textToSpeech).map(\.name) == ["elevenlabs", "deepgram", "openai", "piper", "apple", "second-voice", "neural", "espeak-ng"])
        #expect(catalog.entries(for: .voiceActivity).map(\.name) == ["silero", "energy"])
        let apple = catalog.entries.filter { $0.name == "apple" }
        #expect(apple.count == 3 && apple.allSatisfy { $0.placement == .onDevice && $0.isConfigured(in: RuntimeSettings(values: [:])) })
        #expect(catalog.entry(.languageModel, named: "apple")?.defaultModel == "system")
        #expect(catalog.entry(.languageModel, named: "apple")?.variables == ["PARLEY_SPEECH_LOCALE"])
        #expect(catalog.selectionNames(for: .speechToText).contains("apple"))
        // A capability the catalog has no entry of: appended.
        let alone = ProviderCatalog(entries: []).adding(platform: Self.platform)
        #expect(alone.entries.map(\.capability) == [.languageModel, .speechToText, .textToSpeech])
    }

    @Test("the chains try them in the catalog's order, and the report shows each with why it cannot serve")
    func chainsAndReport() async throws {
        let catalog = ProviderCatalog.standard.adding(platform: Self.platform)
        let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) }
        let settings = RuntimeSettings(values: environment.merging(everyKey) { $1 }.merging(["PARLEY_LLM_MODEL": "smollm2-135m"]) { $1 })
        let runtime = Runtime(settings: settings, catalog: catalog)

        let stt = try #require(try runtime.speechToText() as? SpeechToTextChain<ContinuousClock>)
        #expect(stt.providers.map(\.identity.name) == ["deepgram", "assemblyai", "openai", "scripted-stt", "whisper.cpp"])
        let tts = try #require(try runtime.textToSpeech() as? TextToSpeechChain<ContinuousClock>)
        #expect(tts.providers.map(\.identity.name) == ["elevenlabs", "deepgram", "openai", "piper", "tone-tts", "sherpa-onnx", "espeak-ng"])
        let llm = try #require((try await runtime.languageModel() as? ImageReadingLanguageModel)?.base as? LanguageModelChain<ContinuousClock>)
        #expect(llm.providers.map(\.identity.name) == ["anthropic", "openai", "ollama", "apple-foundation-models", "llama.cpp"])
        // Selected alone by name, and among the on-device engines.
        #expect(try runtime.speechToText(.named("apple")).identity.name == "scripted-stt")
        let local = try #require(try runtime.textToSpeech(.local) as? TextToSpeechChain<ContinuousClock>)
        #expect(local.providers.map(\.identity.name) == ["tone-tts", "sherpa-onnx", "espeak-ng"])

        let report = await runtime.report()
        let model = try #require(report.first { $0.capability == .languageModel }?.chain.first { $0.name == "apple" })
        #expect(model.configured && !model.available && model.placement == .onDevice && model.local)
        #expect(model.reason.contains("Apple Intelligence is off"), "\(model.reason)")
        // An engine that says why it cannot serve says what to do in the same sentence.
        #expect(model.remedy == AppleUnavailability.appleIntelligenceNotEnabled.reason)
        let voice = try #require(report.first { $0.capability == .textToSpeech }?.chain.first { $0.name == "apple" })
        #expect(voice.configured && voice.available && voice.reason == "ready" && voice.remedy == nil)
    }

    @Test("a platform engine reads its settings through the runtime's")
    func settingsReachTheEngine() throws {
        let seen = Locked<String?>(nil)
        let heard = PlatformProvider(
            name: "apple", variables: ["PARLEY_SPEECH_LOCALE"], remedy: "none",
            factory: .speechToText { setting in
                let locale = setting("PARLEY_SPEECH_LOCALE")
                seen.withLock { $0 = locale }
                return ScriptedSpeechToText(transcripts: [])
            })
        let catalog = ProviderCatalog(entries: []).adding(platform: [heard])
        let runtime = Runtime(settings: RuntimeSettings(values: ["PARLEY_SPEECH_LOCALE": "fr-CA", "PARLEY_LLM_MODEL": "smollm2-135m"]), catalog: catalog)
        _ = try runtime.speechToText(.named("apple"))
        #expect(seen.withLock { $0 } == "fr-CA")
    }
}
