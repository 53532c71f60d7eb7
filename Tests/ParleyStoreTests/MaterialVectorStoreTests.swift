import Foundation
import Testing
@testable import ParleyStore

@Suite("Study materials' passage vectors (SQLite and PostgreSQL)")
struct MaterialVectorStoreTests {
    static func vectors(_ material: Material, _ values: [[Float]]) -> MaterialVectors {
        MaterialVectors(
            material: material.id, title: material.title,
            passages: values.enumerated().map { MaterialVectors.Passage(text: "passage \($0.offset)", vector: $0.element) })
    }

    @Test(
        "vectors are kept per model and owner, replaced on save, gone with their material or a changed text",
        arguments: StoreBackend.available)
    func keepReplaceDrop(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let notes = try await MaterialStoreTests.addNotes(to: store)
            let trip = Self.vectors(notes[0], [[1, 0, 0.5], [0, -1, 0.25]])
            try await store.saveMaterialVectors(trip, model: "mini", owner: .local)
            try await store.saveMaterialVectors(Self.vectors(notes[1], [[0, 1, 0]]), model: "mini", owner: .local)
            try await store.saveMaterialVectors(Self.vectors(notes[1], [[9, 9]]), model: "other", owner: .local)

            let kept = try await store.materialVectors(model: "mini", owner: .local)
            #expect(kept.map(\.material) == [notes[1].id, notes[0].id], "newest material first")
            #expect(kept[1] == trip, "passages in order, floats exact")
            #expect(try await store.materialVectors(model: "other", owner: .local).map(\.material) == [notes[1].id])
            #expect(try await store.materialVectors(model: "mini", owner: .key("ana")).isEmpty)
            await #expect(throws: StoreError.materialNotFound(notes[0].id)) {
                try await store.saveMaterialVectors(trip, model: "mini", owner: .key("ana"))
            }

            // Saving again replaces; deleting the material deletes its vectors.
            try await store.saveMaterialVectors(Self.vectors(notes[0], [[0.5, 0.5, 0.5]]), model: "mini", owner: .local)
            #expect(try await store.materialVectors(model: "mini", owner: .local).last?.passages.count == 1)
            try await store.deleteMaterial(notes[0].id, owner: .local)
            #expect(try await store.materialVectors(model: "mini", owner: .local).map(\.material) == [notes[1].id])
            #expect(try await tested.rowCount("material_vector") == 2)

            // A synced material saved again with new text loses its vectors; with the same text it keeps them.
            let synced = try await store.saveMaterial(MaterialStoreTests.note("Doc", "First text.", origin: "drive:1"), owner: .local)
            try await store.saveMaterialVectors(Self.vectors(synced, [[1, 1]]), model: "mini", owner: .local)
            _ = try await store.saveMaterial(MaterialStoreTests.note("Doc", "First text.", origin: "drive:1"), owner: .local)
            #expect(try await store.materialVectors(model: "mini", owner: .local).contains { $0.material == synced.id })
            _ = try await store.saveMaterial(MaterialStoreTests.note("Doc", "Second text.", origin: "drive:1"), owner: .local)
            #expect(try await !store.materialVectors(model: "mini", owner: .local).contains { $0.material == synced.id })
        }
    }

    @Test("vector bytes are little-endian floats and read back exactly")
    func bytes() {
        let passage = MaterialVectors.Passage(text: "x", vector: [1, -0.5, .pi, 0])
        #expect(passage.vectorBytes.count == 16)
        #expect(Array(passage.vectorBytes.prefix(4)) == [0x00, 0x00, 0x80, 0x3F])
        #expect(MaterialVectors.Passage.vector(from: passage.vectorBytes) == passage.vector)
        #expect(MaterialVectors.Passage.vector(from: [1, 2, 3]) == nil)
    }

    @Test("meaning blends with words: a close passage without shared words is found, a far one is not")
    func blend() {
        func material(_ id: Int64, _ vector: [Float]) -> MaterialVectors {
            MaterialVectors(material: id, title: "M\(id)", passages: [.init(text: "text of \(id)", vector: vector)])
        }
        let query: [Float] = [1, 0]
        let materials = [material(1, [0.6, 0.8]), material(2, [0.1, 0.995]), material(3, [0.95, 0.312])]
        let near = MaterialSearch.nearest(to: query, in: materials)
        #expect(near.map(\.material.material) == [3, 1, 2])
        // Material 2 matched a word but is far in meaning; 3 shares no word but is close.
        let words = [
            MaterialSearch.Hit(material: 2, title: "M2", snippet: "word hit", score: 7.5),
            MaterialSearch.Hit(material: 1, title: "M1", snippet: "weaker word hit", score: 2.5),
        ]
        let hits = MaterialSearch.blend(words: words, meanings: near, limit: 5)
        #expect(hits.map(\.material) == [2, 3, 1])
        #expect(hits.first { $0.material == 3 }?.snippet == "text of 3")
        #expect(abs(hits[0].score - (0.5 * 1 + 0.5 * 0.1)) < 1e-6)
        // Below the threshold, meaning alone finds nothing.
        let far = MaterialSearch.nearest(to: query, in: [material(4, [0.2, 0.98])])
        #expect(MaterialSearch.blend(words: [], meanings: far, limit: 3).isEmpty)
        #expect(MaterialSearch.blend(words: words, meanings: near, limit: 1).map(\.material) == [2])
        #expect(MaterialSearch.blend(words: words, meanings: near, limit: 0).isEmpty)
    }
}
