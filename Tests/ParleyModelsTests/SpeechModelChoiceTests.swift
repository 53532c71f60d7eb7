import Foundation
import ParleyModels
import Testing

@Suite("the choice of ears: memory, cores and the final-transcript budget")
struct SpeechModelChoiceTests {
    /// Five speech models with fixed facts, so the table below does not move when the standard
    /// catalog's measurements do.
    static func model(_ id: String, wer: Double, milliseconds: Double, memory: Int64, engine: SpeechFacts.Engine = .whisper) -> CatalogModel {
        CatalogModel(
            id: id, displayName: id, capability: .stt,
            files: [ModelFile(name: "\(id).bin", size: 1_000, sha256: nil, source: .url(URL(string: "http://127.0.0.1:9/\(id).bin")!))],
            licence: "MIT", memory: memory,
            speech: SpeechFacts(engine: engine, publishedWER: wer, finalTranscriptMilliseconds: milliseconds, measured: true, englishOnly: true))
    }

    static let catalog = ModelCatalog(models: [
        model("tiny", wer: 12.8, milliseconds: 200, memory: 130_000_000),
        model("turbo", wer: 7.8, milliseconds: 15_000, memory: 1_200_000_000),
        model("moon", wer: 10.0, milliseconds: 700, memory: 600_000_000, engine: .moonshine),
        model("base", wer: 10.3, milliseconds: 450, memory: 260_000_000),
        model("small", wer: 8.6, milliseconds: 2_000, memory: 852_000_000),
        CatalogModel(
            id: "llm", displayName: "llm", capability: .llm, preset: .fast,
            files: [ModelFile(name: "llm.gguf", size: 1, sha256: nil, source: .setup("made"))], licence: "MIT", memory: 1),
    ])

    static let gigabyte: Int64 = 1_000_000_000

    @Test(
        "a table of machines: the best heard model whose memory and final transcript fit",
        arguments: [
            (8 * gigabyte, 2, "base"),  // base's 450 ms fit the 500 ms budget on two cores; Moonshine's 700 do not
            (8 * gigabyte, 1, "tiny"),  // one core doubles every time: base would take 900 ms
            (8 * gigabyte, 4, "moon"),  // Moonshine's 350 ms fit, and it hears better than base
            (16 * gigabyte, 8, "small"),  // small's 2 s become 500 ms on eight cores
            (16 * gigabyte, 64, "small"),  // past eight cores nothing gets quicker: turbo never fits on a CPU
            (2 * gigabyte, 8, "base"),  // Moonshine needs 600 MB, more than a quarter of 2 GB
            (400_000_000, 1, "tiny"),  // nothing fits (tiny needs 520 MB of room): the quickest hears
        ] as [(Int64, Int, String)])
    func table(memory: Int64, cores: Int, expected: String) {
        let machine = MachineProfile(availableMemory: memory, cores: cores)
        #expect(machine.recommendedSpeechModel(in: Self.catalog)?.id == expected)
    }

    @Test("the time on a machine scales the reference two cores' time by its cores, up to eight")
    func scaling() throws {
        let small = try #require(Self.catalog.model("small"))
        #expect(MachineProfile(availableMemory: Self.gigabyte, cores: 2).finalTranscriptMilliseconds(of: small) == 2_000)
        #expect(MachineProfile(availableMemory: Self.gigabyte, cores: 1).finalTranscriptMilliseconds(of: small) == 4_000)
        #expect(MachineProfile(availableMemory: Self.gigabyte, cores: 16).finalTranscriptMilliseconds(of: small) == 500)
        #expect(MachineProfile(availableMemory: 8 * Self.gigabyte, cores: 2).speechMisfit(small)?.contains("over the 500 ms budget") == true)
        #expect(MachineProfile(availableMemory: Self.gigabyte, cores: 8).speechMisfit(small)?.contains("a quarter of the free") == true)
        let llm = try #require(Self.catalog.model("llm"))
        #expect(MachineProfile(availableMemory: Self.gigabyte, cores: 8).finalTranscriptMilliseconds(of: llm) == nil)
    }

    @Test("the setting wins; else the machine's model if installed, else the best installed that fits, else the quickest installed")
    func resolve() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ears-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func install(_ id: String) {
            FileManager.default.createFile(atPath: folder.appendingPathComponent("\(id).bin").path, contents: Data(count: 1_000))
        }
        let twoCores = MachineProfile(availableMemory: 8 * Self.gigabyte, cores: 2)
        func choice(_ setting: String? = nil, _ machine: MachineProfile = twoCores) -> SpeechModelChoice {
            SpeechModelChoice.resolve(setting: setting, folder: folder, catalog: Self.catalog, machine: machine)
        }
        // Nothing installed: the quickest, with the command that fetches it.
        #expect(choice().model?.id == "tiny")
        #expect(choice().reason == "no speech model is installed; run parley models pull tiny")
        // The machine's model missing: the best installed that fits, and what would be better.
        install("tiny")
        install("moon")
        #expect(choice().model?.id == "tiny")
        #expect(choice().reason.hasPrefix("base suits this machine (8.0 GB free, 2 cores: published WER 10.3%, ~450 ms within 500 ms)"))
        #expect(choice().reason.hasSuffix("but is not installed (parley models pull base); using tiny, the best installed"))
        // Four cores: Moonshine is the machine's own choice, and it is there.
        let fourCores = MachineProfile(availableMemory: 8 * Self.gigabyte, cores: 4)
        #expect(choice(nil, fourCores).model?.id == "moon" && choice(nil, fourCores).isMoonshine)
        #expect(
            choice(nil, fourCores).reason.contains(
                "the best heard model that suits this machine (8.0 GB free, 4 cores): published WER 10.0%, final transcript of 5 s of speech ~350 ms"))
        // Only a model too slow for the machine installed: it hears, the quickest there is.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("tiny.bin"))
        #expect(choice().model?.id == "moon")
        // A setting names a model (any case), or a whisper.cpp file.
        #expect(choice("SMALL").model?.id == "small" && choice("SMALL").reason == "chosen in the settings (PARLEY_STT_MODEL)")
        #expect(choice("/srv/ggml-medium.en.bin").path.path == "/srv/ggml-medium.en.bin")
        #expect(choice("/srv/ggml-medium.en.bin").model == nil)
        #expect(choice("/srv/ggml-medium.en.bin").reason == "the file the settings name (PARLEY_STT_MODEL)")
    }

    @Test("the standard catalog: every English speech model has speech facts, a hub source pinned by commit, size and SHA-256")
    func standardCatalog() throws {
        let catalog = ModelCatalog.standard
        let whisper = ["whisper-tiny.en", "whisper-base.en", "whisper-small.en", "whisper-large-v3-turbo"]
        for id in whisper {
            let model = try #require(catalog.model(id))
            #expect(model.speech?.engine == .whisper)
            let file = try #require(model.files.first)
            guard case .hub(let hub) = file.source else {
                Issue.record("\(id) has no hub source")
                continue
            }
            #expect(hub.repository == "ggerganov/whisper.cpp" && hub.file == file.name && hub.revision.count == 40)
            #expect(file.sha256?.count == 64 && file.size > 0)
        }
        #expect(catalog.model("whisper-large-v3-turbo")?.files.first?.name == "ggml-large-v3-turbo-q5_0.bin")
        #expect(catalog.model("moonshine-base")?.speech?.engine == .moonshine)
        // tiny.en: the hub's file first; setup's conversion (another size) after it, in place at its own size.
        let tiny = try #require(catalog.model("whisper-tiny.en")?.files.first)
        #expect(tiny.isMadeBySetup && tiny.size == 77_704_715)
        // On the reference machine (two cores), tiny.en fits the budget and turbo does not.
        let reference = MachineProfile(availableMemory: 8_000_000_000, cores: 2)
        #expect(reference.speechMisfit(try #require(catalog.model("whisper-tiny.en"))) == nil)
        #expect(reference.speechMisfit(try #require(catalog.model("whisper-large-v3-turbo"))) != nil)
        #expect(reference.speechMisfit(try #require(catalog.model("moonshine-base"))) != nil)
        // Two cores: base.en's ~457 ms fit; where it cannot be had (here), tiny.en hears.
        #expect(reference.recommendedSpeechModel()?.id == "whisper-base.en")
        #expect(MachineProfile(availableMemory: 8_000_000_000, cores: 1).recommendedSpeechModel()?.id == "whisper-tiny.en")
        // Four cores: Moonshine (published WER 9.99) is quick enough; base.en too, but hears worse.
        #expect(MachineProfile(availableMemory: 8_000_000_000, cores: 4).recommendedSpeechModel()?.id == "moonshine-base")
        #expect(MachineProfile(availableMemory: 8_000_000_000, cores: 4).speechMisfit(try #require(catalog.model("whisper-base.en"))) == nil)
    }

    @Test("a file setup made from other weights is in place at its own size and passes verify; the hub's size is checked by SHA-256")
    func madeBySetup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-made-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ModelFile(
            name: "made.bin", size: 16, sha256: String(repeating: "0", count: 64),
            source: .url(URL(string: "http://127.0.0.1:9/made.bin")!), mirrors: [.setup("converted here")])
        let model = CatalogModel(id: "made", displayName: "made", capability: .stt, files: [file], licence: "MIT", memory: 1)
        let library = ModelLibrary(folder: folder, catalog: ModelCatalog(models: [model]))
        #expect(library.state(of: model) == .missing)
        FileManager.default.createFile(atPath: folder.appendingPathComponent("made.bin").path, contents: Data(count: 15))
        #expect(library.state(of: model) == .installed)
        #expect(library.verify(model) == [FileCheck(name: "made.bin", problem: nil)])
        // The source's size: the bytes must be the source's.
        FileManager.default.createFile(atPath: folder.appendingPathComponent("made.bin").path, contents: Data(count: 16))
        #expect(library.verify(model).first?.problem?.hasPrefix("SHA-256") == true)
        #expect(model.isObtainable && model.isDownloadable)
    }
}
