import Foundation
import ParleyCore
import ParleyRuntime
import Testing

/// Every key of every provider, with every server on a closed local port so nothing leaves
/// the machine.
let everyKey: [String: String] = [
    "OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "OLLAMA_HOST": "http://127.0.0.1:9",
    "DEEPGRAM_API_KEY": "d", "DEEPGRAM_BASE_URL": "http://127.0.0.1:9",
    "ASSEMBLYAI_API_KEY": "s", "ASSEMBLYAI_BASE_URL": "http://127.0.0.1:9",
    "ELEVENLABS_API_KEY": "e", "ELEVENLABS_BASE_URL": "http://127.0.0.1:9",
    "PIPER_BASE_URL": "http://127.0.0.1:9",
]

/// A runtime on exactly `values` (and the process's environment for the data directory, with
/// any provider setting of the environment left out).
func runtime(_ values: [String: String], options: RuntimeOptions = RuntimeOptions()) -> Runtime<ContinuousClock> {
    let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) }
        .merging(["PARLEY_LLM_MODEL": "smollm2-135m"]) { $1 }
    return Runtime(settings: RuntimeSettings(values: environment.merging(values) { $1 }), options: options)
}

@Suite("provider catalog: doctor and the chains read one table")
struct CatalogOrderTests {
    @Test("with every key set, the order doctor shows is the order each chain tries")
    func doctorOrderIsChainOrder() async throws {
        let runtime = runtime(everyKey)
        let report = await runtime.report()
        func configured(_ capability: ProviderCapability) -> [String] {
            report.first { $0.capability == capability }?.chain.filter(\.configured).map(\.provider) ?? []
        }
        let llm = try #require((try await runtime.languageModel() as? ImageReadingLanguageModel)?.base as? LanguageModelChain<ContinuousClock>)
        #expect(llm.providers.map(\.identity.description) == configured(.languageModel))
        let stt = try #require(try runtime.speechToText() as? SpeechToTextChain<ContinuousClock>)
        #expect(stt.providers.map(\.identity.description) == configured(.speechToText))
        let tts = try #require(try runtime.textToSpeech() as? TextToSpeechChain<ContinuousClock>)
        #expect(tts.providers.map(\.identity.description) == configured(.textToSpeech))
        // The seeds' order.
        #expect(stt.providers.map(\.identity.name) == ["deepgram", "assemblyai", "openai", "whisper.cpp"])
        #expect(tts.providers.map(\.identity.name) == ["elevenlabs", "deepgram", "openai", "piper", "sherpa-onnx", "espeak-ng"])
        #expect(llm.providers.map(\.identity.name) == ["anthropic", "openai", "ollama", "llama.cpp"])
    }

    @Test("Deepgram comes before AssemblyAI whichever way the keys are listed (doctor and talk used to disagree)")
    func deepgramBeforeAssemblyAI() async throws {
        let runtime = runtime([
            "ASSEMBLYAI_API_KEY": "s", "ASSEMBLYAI_BASE_URL": "http://127.0.0.1:9",
            "DEEPGRAM_API_KEY": "d", "DEEPGRAM_BASE_URL": "http://127.0.0.1:9",
        ])
        let stt = try #require(try runtime.speechToText() as? SpeechToTextChain<ContinuousClock>)
        #expect(stt.providers.first?.identity.name == "deepgram")
        let report = await runtime.report()
        let doctorOrder = report.first { $0.capability == .speechToText }?.chain.filter(\.configured).map(\.name)
        #expect(doctorOrder == ["deepgram", "assemblyai", "local"])
    }

    @Test("with no keys, every chain is on device (speech: the neural voice, then espeak-ng) and doctor says what each cloud provider needs")
    func offlineDefault() async throws {
        let runtime = runtime([:])
        #expect(try await runtime.languageModel().identity.name == "llama.cpp")
        #expect(try runtime.speechToText().identity.name == "whisper.cpp")
        let voices = try #require(try runtime.textToSpeech() as? TextToSpeechChain<ContinuousClock>)
        #expect(voices.providers.map(\.identity.name) == ["sherpa-onnx", "espeak-ng"])
        let local = try #require(try runtime.textToSpeech(.local) as? TextToSpeechChain<ContinuousClock>)
        #expect(local.providers.map(\.identity.name) == ["sherpa-onnx", "espeak-ng"])
        #expect(try runtime.textToSpeech(.named("espeak-ng")).identity.name == "espeak-ng")
        let report = await runtime.report()
        let deepgram = try #require(report.first { $0.capability == .speechToText }?.chain.first)
        #expect(!deepgram.configured && deepgram.remedy == "set DEEPGRAM_API_KEY")
    }

    @Test("a named provider is built with the base URL and model asked for; an unknown name lists the known ones")
    func namedSelection() async throws {
        let runtime = runtime([:])
        let openai = try await runtime.languageModel(.named("openai", baseURL: "http://127.0.0.1:9/v1", model: "qwen"))
        #expect(openai.identity.description == "openai (qwen)")
        #expect(openai.identity.isLocal)
        #expect(
            throws: RuntimeError.unknownProvider(
                "watson", capability: .speechToText, known: ["auto", "local", "deepgram", "assemblyai", "openai", "moonshine"])
        ) {
            try runtime.speechToText(.named("watson"))
        }
        #expect(ProviderSelection("auto") == .auto && ProviderSelection("local") == .local)
    }

    @Test("PARLEY_STT_MODEL=moonshine-base puts Moonshine before whisper.cpp on device; unset, whisper.cpp hears alone")
    func speechModelChoice() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-stt-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let chosen = runtime(["PARLEY_STT_MODEL": "Moonshine-Base", "PARLEY_HOME": folder.path])
        let chain = try #require(try chosen.speechToText() as? SpeechToTextChain<ContinuousClock>)
        #expect(chain.providers.map(\.identity.description) == ["sherpa-onnx (moonshine-base-en)", "whisper.cpp (tiny.en)"])
        let local = try #require(try chosen.speechToText(.local) as? SpeechToTextChain<ContinuousClock>)
        #expect(local.providers.map(\.identity.name) == ["sherpa-onnx", "whisper.cpp"])
        // Its model is missing in this data directory: the chain says so and how to get it.
        guard case .missingModel(_, let hint) = await chain.providers[0].availability() else {
            Issue.record("expected a missing model")
            return
        }
        #expect(hint.contains("parley models pull moonshine-base"))

        for values in [[:], ["PARLEY_STT_MODEL": "whisper-tiny.en"]] {
            let plain = runtime(values)
            #expect(try plain.speechToText().identity.name == "whisper.cpp")
            #expect(try plain.speechToText(.local).identity.name == "whisper.cpp")
            // Named, it is there whatever the setting.
            #expect(try plain.speechToText(.named("moonshine")).identity.description == "sherpa-onnx (moonshine-base-en)")
        }
        let report = await runtime([:]).report()
        let entry = try #require(report.first { $0.capability == .speechToText }?.chain.first { $0.name == "moonshine" })
        #expect(!entry.configured && entry.remedy?.contains("PARLEY_STT_MODEL=moonshine-base") == true)

        // A whisper.cpp model of the catalog, or a file, named in the settings is what whisper.cpp hears with.
        let small = runtime(["PARLEY_STT_MODEL": "whisper-small.en", "PARLEY_HOME": folder.path])
        #expect(try small.speechToText(.local).identity.description == "whisper.cpp (small.en)")
        #expect(small.speechModelChoice?.model?.id == "whisper-small.en")
        #expect(small.speechModelChoice?.path.path == folder.appendingPathComponent("models/ggml-small.en.bin").path)
        let file = runtime(["PARLEY_STT_MODEL": "/srv/ggml-medium.en.bin", "PARLEY_HOME": folder.path])
        #expect(try file.speechToText(.local).identity.description == "whisper.cpp (medium.en)")
        // Unset, in an empty data directory: the quickest model, missing, and the command that fetches it.
        let empty = runtime(["PARLEY_HOME": folder.path])
        #expect(empty.speechModelChoice?.model?.id == "whisper-tiny.en")
        #expect(empty.speechModelChoice?.reason == "no speech model is installed; run parley models pull whisper-tiny.en")
        // A whisper.cpp file given in the options wins over both.
        var options = RuntimeOptions()
        options.engines.whisperModel = "/srv/ggml-base.en.bin"
        let given = runtime(["PARLEY_STT_MODEL": "whisper-small.en", "PARLEY_HOME": folder.path], options: options)
        #expect(given.speechModelChoice == nil)
        #expect(try given.speechToText(.local).identity.description == "whisper.cpp (base.en)")
    }

    @Test("settings come from a ConfigReader: the environment first, then the file; keys are secrets")
    func settingsFromFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-settings-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"openai":{"api":{"key":"from-file"},"model":"file-model"},"parley":{"database":"/tmp/x.sqlite","budget":{"monthly":5}}}"#.utf8)
            .write(to: file)
        let settings = try await RuntimeSettings.load(environment: ["PARLEY_CONFIG": file.path, "OPENAI_MODEL": "env-model"])
        #expect(settings.value("OPENAI_API_KEY") == "from-file")
        #expect(settings.value("OPENAI_MODEL") == "env-model")
        #expect(settings.database.path == "/tmp/x.sqlite")
        #expect(settings.budget?.monthly == 5)
    }
}
