import Foundation
import ParleyStore
import Testing

@Suite("Study materials (SQLite and PostgreSQL)")
struct MaterialStoreTests {
    static let biology = NewMaterial(title: "Biology", kind: "pdf", source: "/tmp/biology.pdf",
                                     text: "Photosynthesis\n\nRespiration", pageCount: 2, readBy: "pdftotext+tesseract")

    @Test("materials are added whole, listed newest first, shown and removed", arguments: StoreBackend.available)
    func addListShowRemove(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let first = try await store.addMaterial(Self.biology, owner: .local)
            tested.clock.advance(seconds: 1)
            let second = try await store.addMaterial(NewMaterial(title: "Notes", kind: "markdown", source: "n.md", text: "# Notes", pageCount: 1, readBy: "file"), owner: .local)
            #expect(first.title == "Biology" && first.kind == "pdf" && first.pageCount == 2 && first.readBy == "pdftotext+tesseract")
            #expect(first.text == "Photosynthesis\n\nRespiration" && first.source == "/tmp/biology.pdf")
            #expect(first.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.materials(owner: .local) == [second, first])
            #expect(try await store.material(first.id, owner: .local) == first)

            try await store.deleteMaterial(first.id, owner: .local)
            #expect(try await store.materials(owner: .local) == [second])
            #expect(try await store.material(first.id, owner: .local) == nil)
            await #expect(throws: StoreError.materialNotFound(first.id)) { try await store.deleteMaterial(first.id, owner: .local) }
        }
    }

    @Test("each owner sees only their own materials", arguments: StoreBackend.available)
    func owners(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let ana = Owner.key("ana")
            let hers = try await store.addMaterial(Self.biology, owner: ana)
            #expect(try await store.materials(owner: .local).isEmpty)
            #expect(try await store.material(hers.id, owner: .local) == nil)
            await #expect(throws: StoreError.materialNotFound(hers.id)) { try await store.deleteMaterial(hers.id, owner: .local) }
            #expect(try await store.materials(owner: ana) == [hers])
        }
    }
}
