import Foundation
import ParleyStore
import Testing

@Suite("Stash")
struct StashTests {
    @Test("items are added, listed newest first, and deleted")
    func addListDelete() throws {
        let fixture = try StoreFixture()
        let note = try fixture.store.stash(NewStashItem(kind: "note", text: "buy milk"))
        fixture.clock.advance(seconds: 1)
        let other = try fixture.store.stash(NewStashItem(kind: "note", text: "call Ana"))
        #expect(note.kind == "note" && note.text == "buy milk" && note.threadID == nil && note.messageID == nil)
        #expect(note.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try fixture.store.stashItems() == [other, note])

        try fixture.store.deleteStashItem(note.id)
        #expect(try fixture.store.stashItems() == [other])
        #expect(throws: StoreError.stashItemNotFound(note.id)) { try fixture.store.deleteStashItem(note.id) }
    }

    @Test("an item from a message takes the message's thread, and outlives the thread")
    func tiedToMessage() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let reply = try fixture.store.append(NewMessage(role: .assistant, text: "42"), to: thread.id)
        let item = try fixture.store.stash(NewStashItem(kind: "reply", text: reply.text, messageID: reply.id))
        #expect(item.threadID == thread.id)
        #expect(item.messageID == reply.id)

        try fixture.store.deleteThread(thread.id)
        let kept = try fixture.store.stashItems()
        #expect(kept.map(\.id) == [item.id])
        #expect(kept.first?.threadID == nil)
        #expect(kept.first?.messageID == nil)
        #expect(kept.first?.text == "42")
    }

    @Test("an item cannot point at a thread or message that does not exist")
    func unknownReferences() throws {
        let fixture = try StoreFixture()
        #expect(throws: StoreError.threadNotFound(77)) {
            try fixture.store.stash(NewStashItem(kind: "note", text: "x", threadID: 77))
        }
        #expect(throws: StoreError.messageNotFound(88)) {
            try fixture.store.stash(NewStashItem(kind: "reply", text: "x", messageID: 88))
        }
        #expect(try fixture.store.stashItems().isEmpty)
    }
}
