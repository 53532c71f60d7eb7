import Foundation
import ParleyStore
import Testing

@Suite("Stash (SQLite and PostgreSQL)")
struct StashTests {
    @Test("items are added, listed newest first, and deleted", arguments: StoreBackend.available)
    func addListDelete(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let note = try await store.stash(NewStashItem(kind: "note", text: "buy milk"), owner: .local)
            tested.clock.advance(seconds: 1)
            let other = try await store.stash(NewStashItem(kind: "note", text: "call Ana"), owner: .local)
            #expect(note.kind == "note" && note.text == "buy milk" && note.threadID == nil && note.messageID == nil)
            #expect(note.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.stashItems(owner: .local) == [other, note])

            try await store.deleteStashItem(note.id, owner: .local)
            #expect(try await store.stashItems(owner: .local) == [other])
            await #expect(throws: StoreError.stashItemNotFound(note.id)) { try await store.deleteStashItem(note.id, owner: .local) }
        }
    }

    @Test("an item from a message takes the message's thread, and outlives the thread", arguments: StoreBackend.available)
    func tiedToMessage(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let reply = try await store.append(NewMessage(role: .assistant, text: "42"), to: thread.id, owner: .local)
            let item = try await store.stash(NewStashItem(kind: "reply", text: reply.text, messageID: reply.id), owner: .local)
            #expect(item.threadID == thread.id)
            #expect(item.messageID == reply.id)

            try await store.deleteThread(thread.id, owner: .local)
            let kept = try await store.stashItems(owner: .local)
            #expect(kept.map(\.id) == [item.id])
            #expect(kept.first?.threadID == nil)
            #expect(kept.first?.messageID == nil)
            #expect(kept.first?.text == "42")
        }
    }

    @Test("an item cannot point at a thread or message that does not exist", arguments: StoreBackend.available)
    func unknownReferences(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            await #expect(throws: StoreError.threadNotFound(77)) {
                try await store.stash(NewStashItem(kind: "note", text: "x", threadID: 77), owner: .local)
            }
            await #expect(throws: StoreError.messageNotFound(88)) {
                try await store.stash(NewStashItem(kind: "reply", text: "x", messageID: 88), owner: .local)
            }
            let items = try await store.stashItems(owner: .local)
            #expect(items.isEmpty)
        }
    }
}
