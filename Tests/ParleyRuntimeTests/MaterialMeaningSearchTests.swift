import Foundation
import ParleyCore
import ParleyLocal
import ParleyRuntime
import ParleyStore
import ParleyTestLanes
import Testing

/// Study-material search by meaning as well as words, on the real on-device embedding model
/// (all-MiniLM-L6-v2 through llama.cpp, installed by scripts/setup).
@Suite("material search by meaning", .serialized, .onDeviceEngines)
struct MaterialMeaningSearchTests {
    static let modelPath = ParleyPaths.current().defaultEmbeddingModel
    static let embedder = LlamaEmbedder(configuration: .init(modelPath: modelPath.path, threads: 2, name: "all-minilm-l6-v2"))

    static func embedderOrFail() throws -> LlamaEmbedder {
        guard FileManager.default.fileExists(atPath: modelPath.path) else {
            Issue.record("Missing \(modelPath.path): run scripts/setup first.")
            throw CancellationError()
        }
        return embedder
    }

    static func withStore(_ body: (ConversationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-meaning-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ConversationStore(path: directory.appendingPathComponent("parley.sqlite")))
    }

    static func note(_ title: String, _ text: String) -> NewMaterial {
        NewMaterial(title: title, kind: "text", source: "\(title).md", text: text, pageCount: 1, readBy: "file")
    }

    static let notes = [
        note(
            "Week 3",
            "Cars need regular oil changes and tyre checks. A family car with a petrol engine burns about six litres of fuel every hundred kilometres."),
        note("Biology", "Photosynthesis turns sunlight, water and carbon dioxide into sugar and oxygen in the leaves of green plants."),
        note("Trip", "The field trip to the science museum is on Friday. Bring a packed lunch and a notebook."),
    ]

    @Test("a question sharing no word with the passage finds it by meaning; words alone find nothing")
    func automobile() async throws {
        let embedder = try Self.embedderOrFail()
        try await Self.withStore { store in
            let added = try Self.notes.map { try store.addMaterial($0) }
            // No material holds "automobile": the word search finds nothing.
            #expect(try store.searchMaterials("automobile", limit: 3).isEmpty)
            #expect(try await MaterialFinder(store: store, embedder: nil).search("automobile", limit: 3, owner: .local).isEmpty)

            // With the embedder the materials are embedded lazily (none were at add time) and the
            // car passage is found, and only it.
            var finder = MaterialFinder(store: store, embedder: embedder)
            // All three at once, however busy the machine (the default budget leaves the rest of
            // a slow first search to later searches).
            finder.indexingBudget = .seconds(120)
            let hits = try await finder.search("automobile", limit: 3, owner: .local)
            #expect(hits.map(\.material) == [added[0].id], "\(hits)")
            #expect(hits.first?.snippet.hasPrefix("Cars need regular oil changes") == true)
            #expect(try store.materialVectors(model: "all-minilm-l6-v2").count == 3)

            #expect(try await finder.search("how do plants make food", limit: 1, owner: .local).map(\.material) == [added[1].id])
            #expect(try await finder.search("banana bread recipe", limit: 3, owner: .local).isEmpty, "nothing close in meaning")
            // A word hit still comes first, and stays found.
            #expect(try await finder.search("museum", limit: 3, owner: .local).first?.material == added[2].id)
        }
    }

    @Test("a material is embedded when it is added; the built-in tool searches by meaning with an embedder")
    func indexOnAdd() async throws {
        let embedder = try Self.embedderOrFail()
        try await Self.withStore { store in
            let finder = MaterialFinder(store: store, embedder: embedder)
            let car = try store.addMaterial(Self.notes[0])
            await finder.index(car, owner: .local)
            let kept = try store.materialVectors(model: "all-minilm-l6-v2")
            #expect(kept.map(\.material) == [car.id])
            #expect(kept.first?.passages.first?.vector.count == 384)

            let box = try BuiltInTools.toolbox(store: store, owner: .local, embedder: embedder)
            let found = try #require(await box.run([ToolCall(id: "c1", name: "search_materials", arguments: #"{"query":"automobile upkeep"}"#)]).first)
            #expect(
                found.content.hasPrefix("From \"Week 3\" (material \(car.id), saved ") && found.content.contains("): Cars need"),
                "\(found.content)")
            let without = try BuiltInTools.toolbox(store: store, owner: .local)
            let none = try #require(await without.run([ToolCall(id: "c2", name: "search_materials", arguments: #"{"query":"automobile upkeep"}"#)]).first)
            #expect(none.content.hasPrefix("Nothing in the 1 saved materials matches"), "\(none.content)")
        }
    }

    @Test("with no time to embed, a search embeds one material and finds the rest by words; later searches go on")
    func budget() async throws {
        let embedder = try Self.embedderOrFail()
        try await Self.withStore { store in
            let added = try Self.notes.map { try store.addMaterial($0) }
            var finder = MaterialFinder(store: store, embedder: embedder)
            finder.indexingBudget = .zero
            #expect(try await finder.search("museum", limit: 3, owner: .local).map(\.material) == [added[2].id])
            #expect(try store.materialVectors(model: "all-minilm-l6-v2").map(\.material) == [added[2].id], "the newest first")
            _ = try await finder.search("museum", limit: 3, owner: .local)
            _ = try await finder.search("museum", limit: 3, owner: .local)
            #expect(try store.materialVectors(model: "all-minilm-l6-v2").count == 3)
        }
    }

    @Test("a failing embedder falls back to words with a warning")
    func failingEmbedder() async throws {
        struct Broken: EmbeddingProvider {
            var identity: ProviderIdentity { ProviderIdentity(name: "broken", model: "broken", isLocal: true) }
            func availability() async -> Availability { .ready }
            func embed(_ texts: [String], model: String?) async throws -> Embeddings { throw ProviderError.engineFailure(provider: "broken", detail: "no") }
        }
        try await Self.withStore { store in
            let trip = try store.addMaterial(Self.notes[2])
            let hits = try await MaterialFinder(store: store, embedder: Broken()).search("museum", limit: 3, owner: .local)
            #expect(hits.map(\.material) == [trip.id])
        }
    }

    @Test("an embedder slower than the meaning budget (a first load on a busy machine) leaves the answer to the words, at once")
    func slowEmbedder() async throws {
        struct Slow: EmbeddingProvider {
            var identity: ProviderIdentity { ProviderIdentity(name: "slow", model: "slow", isLocal: true) }
            func availability() async -> Availability { .ready }
            func embed(_ texts: [String], model: String?) async throws -> Embeddings {
                // Ignores cancellation, as an engine's call does.
                let started = ContinuousClock.now
                while ContinuousClock.now - started < .seconds(5) { try? await Task.sleep(for: .milliseconds(50)) }
                throw ProviderError.engineFailure(provider: "slow", detail: "late")
            }
        }
        try await Self.withStore { store in
            let trip = try store.addMaterial(Self.notes[2])
            var finder = MaterialFinder(store: store, embedder: Slow())
            finder.meaningBudget = .milliseconds(200)
            let started = ContinuousClock.now
            let hits = try await finder.search("museum", limit: 3, owner: .local)
            #expect(hits.map(\.material) == [trip.id])
            #expect(ContinuousClock.now - started < .seconds(4), "the search waited for the embedder")
        }
    }
}
