import Foundation
import ParleyCore
import ParleyRuntime
import ParleyStore
import Testing

/// The built-in `search_materials` tool over a SQLite store: the store's full-text index finds
/// the passages, the tool words the reply.
@Suite("search_materials (built-in tool)")
struct SearchMaterialsToolTests {
    static let owner = Owner.key("key-ana")

    /// Runs `search_materials` with `arguments` for `owner` over `store`.
    static func search(_ arguments: String, store: ConversationStore, owner: Owner = .local) async throws -> ToolResult {
        let box = try BuiltInTools.toolbox(store: store, owner: owner)
        return try #require(await box.run([ToolCall(id: "call_1", name: "search_materials", arguments: arguments)]).first)
    }

    /// A store in a fresh directory, removed after `body`.
    static func withStore(_ body: (ConversationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-search-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ConversationStore(path: directory.appendingPathComponent("parley.sqlite")))
    }

    static func note(_ title: String, _ text: String) -> NewMaterial {
        NewMaterial(title: title, kind: "text", source: "\(title).md", text: text, pageCount: 1, readBy: "file")
    }

    @Test("a spoken question gets the matching passage, with its material's title and id")
    func finds() async throws {
        try await Self.withStore { store in
            let trip = try store.addMaterial(Self.note("Class notes", "The field trips to the science museum are on Friday.\n\nBring a packed lunch."))
            try store.addMaterial(Self.note("Algebra", "Solve each equation for x."))
            try store.addMaterial(Self.note("Hers", "Her field trip is on Monday."), owner: Self.owner)
            let result = try await Self.search(#"{"query":"What do my notes say about the field trip?"}"#, store: store)
            #expect(!result.isError)
            #expect(
                result.content.hasPrefix("From \"Class notes\" (material \(trip.id), saved ")
                    && result.content.contains("): The field trips to the science museum are on Friday."),
                "\(result.content)")
            // The other passages' own words (the reply's "saved …" may be "saved Monday …").
            #expect(!result.content.contains("Her field trip") && !result.content.contains("Algebra") && !result.content.contains("Solve"))
        }
    }

    @Test("nothing found: the reply counts the owner's materials; a query of quotes and operators is no error")
    func nothingFound() async throws {
        try await Self.withStore { store in
            try store.addMaterial(Self.note("Algebra", "Solve each equation for x."))
            try store.addMaterial(Self.note("Biology", "Cells divide."))
            try store.addMaterial(Self.note("Hers", "Quantum physics."), owner: Self.owner)
            let none = try await Self.search(#"{"query":"quantum"}"#, store: store)
            #expect(none.content == #"Nothing in the 2 saved materials matches "quantum"."#)
            #expect(!none.isError)
            let hostile = try await Self.search(#"{"query":"\" NEAR( * - OR"}"#, store: store)
            #expect(hostile.content == #"Nothing in the 2 saved materials matches "" NEAR( * - OR"."#)
            #expect(!hostile.isError)
            let hers = try await Self.search(#"{"query":"quantum","limit":5}"#, store: store, owner: Self.owner)
            #expect(hers.content.hasPrefix("From \"Hers\""))
        }
    }
}
