import Foundation
import ParleyStore
import Testing

/// What Google sync keeps: materials replaced by origin, assignments, and small per-owner
/// values — on SQLite and PostgreSQL alike.
@Suite("Synced materials, assignments and sync state (SQLite and PostgreSQL)")
struct SyncStoreTests {
    static func doc(_ text: String, origin: String? = "drive:doc1") -> NewMaterial {
        NewMaterial(
            title: "Water cycle", kind: "text", source: "Google Drive: Water cycle", text: text, pageCount: 1,
            readBy: "drive-export", origin: origin)
    }

    /// A material synced from the Drive file `drive:doc1`.
    static func drive(_ text: String) -> NewMaterial { doc(text) }

    @Test("a material saved again from the same origin is replaced in place", arguments: StoreBackend.available)
    func materialsByOrigin(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let first = try await store.saveMaterial(Self.doc("Evaporation."), owner: .local)
            tested.clock.advance(seconds: 5)
            let second = try await store.saveMaterial(Self.doc("Evaporation and condensation."), owner: .local)
            #expect(second.id == first.id && second.createdAt == first.createdAt)
            #expect(second.text == "Evaporation and condensation." && second.origin == "drive:doc1")
            #expect(try await store.materials(owner: .local) == [second])
            #expect(try await store.material(origin: "drive:doc1", owner: .local) == second)

            // Without an origin, each save adds; another owner's same origin is theirs alone.
            let loose = try await store.saveMaterial(Self.doc("Loose", origin: nil), owner: .local)
            let again = try await store.saveMaterial(Self.doc("Loose", origin: nil), owner: .local)
            #expect(loose.id != again.id)
            let ana = Owner.key("ana")
            let hers = try await store.saveMaterial(Self.doc("Hers"), owner: ana)
            #expect(hers.id != first.id)
            #expect(try await store.material(origin: "drive:doc1", owner: .local)?.text == "Evaporation and condensation.")
            #expect(try await store.deleteMaterial(origin: "drive:doc1", owner: .local))
            #expect(try await store.deleteMaterial(origin: "drive:doc1", owner: .local) == false)
            #expect(try await store.material(origin: "drive:doc1", owner: ana)?.text == "Hers")
        }
    }

    @Test("assignments are listed soonest due first and replaced by origin", arguments: StoreBackend.available)
    func assignments(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let noon = Date(timeIntervalSince1970: 1_796_212_800)  // 2026-12-02T12:00:00Z
            let essay = try await store.saveAssignment(
                NewAssignment(
                    origin: "calendar:primary/e1", source: "calendar", title: "Essay",
                    dueDay: "2026-12-04"), owner: .local)
            _ = try await store.saveAssignment(
                NewAssignment(
                    origin: "gmail:m1#0", source: "gmail", title: "Map", details: "by noon",
                    dueDay: "2026-12-02", link: "https://mail.google.com/mail/#all/m1"), owner: .local)
            _ = try await store.saveAssignment(
                NewAssignment(
                    origin: "gmail:m1#1", source: "gmail", title: "Quiz",
                    dueDay: "2026-12-02", dueAt: noon), owner: .local)
            _ = try await store.saveAssignment(
                NewAssignment(origin: "gmail:m2#0", source: "gmail", title: "Other's", dueDay: "2026-11-30"),
                owner: .key("ana"))
            var listed = try await store.assignments(owner: .local)
            #expect(listed.map(\.title) == ["Quiz", "Map", "Essay"])
            #expect(listed[0].dueAt == noon && listed[1].link == "https://mail.google.com/mail/#all/m1" && listed[1].details == "by noon")

            tested.clock.advance(seconds: 60)
            let moved = try await store.saveAssignment(
                NewAssignment(
                    origin: "calendar:primary/e1", source: "calendar", title: "Essay (2 pages)",
                    dueDay: "2026-12-01"), owner: .local)
            #expect(moved.id == essay.id && moved.createdAt == essay.createdAt && moved.updatedAt > essay.updatedAt)
            listed = try await store.assignments(owner: .local)
            #expect(listed.map(\.title) == ["Essay (2 pages)", "Quiz", "Map"])

            #expect(try await store.deleteAssignment(origin: "gmail:m2#0", owner: .local) == false)
            #expect(try await store.deleteAssignment(origin: "gmail:m1#0", owner: .local))
            #expect(try await store.assignments(owner: .local).count == 2)
            #expect(try await store.assignments(owner: .key("ana")).map(\.title) == ["Other's"])
        }
    }

    @Test("sync state is set, replaced, removed, and each owner's own", arguments: StoreBackend.available)
    func syncState(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            #expect(try await store.syncState("google.token", owner: .local) == nil)
            try await store.setSyncState("google.token", to: "one", owner: .local)
            try await store.setSyncState("google.token", to: "two", owner: .local)
            try await store.setSyncState("google.token", to: "hers", owner: .key("ana"))
            #expect(try await store.syncState("google.token", owner: .local) == "two")
            #expect(try await store.syncState("google.token", owner: .key("ana")) == "hers")
            try await store.setSyncState("google.token", to: nil, owner: .local)
            #expect(try await store.syncState("google.token", owner: .local) == nil)
            #expect(try await store.syncState("google.token", owner: .key("ana")) == "hers")
        }
    }

    @Test("the SQLite file is readable by its owner only")
    func fileMode() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mode-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("parley.sqlite")
        let store = try ConversationStore(path: url)
        try store.setSyncState("google.token", to: "secret", owner: .local)
        for suffix in ["", "-wal"] {
            let mode = try FileManager.default.attributesOfItem(atPath: url.path + suffix)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(suffix)")
        }
    }
}
