import Foundation
import GRDB
import ParleyCore
import Testing
@testable import ParleyStore

@Suite("Owners: each sees only its own threads, messages, audio and stash")
struct OwnershipTests {
    static let alice = Owner.key("key-a11ce")
    static let bob = Owner.key("key-b0b")

    /// Alice's thread with one message (with kept audio) and one stash item, saved in `fixture`.
    struct Saved {
        var thread: StoredThread
        var message: StoredMessage
        var stashed: StashItem
    }

    static func saveAlices(_ fixture: StoreFixture) throws -> Saved {
        let thread = try fixture.store.createThread(title: "alice's", settings: ThreadSettings(), owner: alice)
        let message = try fixture.store.append(NewMessage(role: .user, text: "hello", rawTranscript: "hello"), to: thread.id, owner: alice)
        try fixture.store.attachAudio(message: message.id, file: try fixture.makeAudioFile("alice.wav"), owner: alice)
        let stashed = try fixture.store.stash(NewStashItem(kind: "note", text: "hers", messageID: message.id), owner: alice)
        return Saved(thread: thread, message: try #require(try fixture.store.message(message.id, owner: alice)), stashed: stashed)
    }

    /// Every call that names one of Alice's ids, made by someone else.
    enum Trespass: String, CaseIterable, CustomTestStringConvertible {
        case thread, messages, export, updateSettings, updateThread, deleteThread, append
        case message, editTranscript, attachAudio, deleteAudio
        case stashFromThread, stashFromMessage, deleteStashItem

        var testDescription: String { rawValue }

        /// Runs the call as `owner`; returns what a lookup found (calls that throw return nil).
        func run(_ store: ConversationStore, _ saved: Saved, as owner: Owner, audio: URL) throws -> Any? {
            let thread = saved.thread.id
            let message = saved.message.id
            switch self {
            case .thread: return try store.thread(thread, owner: owner)
            case .messages: _ = try store.messages(in: thread, owner: owner)
            case .export: _ = try store.export(thread: thread, owner: owner)
            case .updateSettings: try store.updateSettings(ThreadSettings(maxTokens: 1), thread: thread, owner: owner)
            case .updateThread: try store.updateThread(thread, owner: owner) { $0.title = "taken" }
            case .deleteThread: try store.deleteThread(thread, owner: owner)
            case .append: try store.append(NewMessage(role: .user, text: "intruder"), to: thread, owner: owner)
            case .message: return try store.message(message, owner: owner)
            case .editTranscript: try store.editTranscript(message: message, text: "changed", owner: owner)
            case .attachAudio: try store.attachAudio(message: message, file: audio, owner: owner)
            case .deleteAudio: try store.deleteAudio(message: message, owner: owner)
            case .stashFromThread: try store.stash(NewStashItem(kind: "note", text: "x", threadID: thread), owner: owner)
            case .stashFromMessage: try store.stash(NewStashItem(kind: "reply", text: "x", messageID: message), owner: owner)
            case .deleteStashItem: try store.deleteStashItem(saved.stashed.id, owner: owner)
            }
            return nil
        }

        /// The error the call fails with; `nil` for the lookups, which find nothing.
        func expected(_ saved: Saved) -> StoreError? {
            switch self {
            case .thread, .message: nil
            case .messages, .export, .updateSettings, .updateThread, .deleteThread, .append, .stashFromThread:
                .threadNotFound(saved.thread.id)
            case .editTranscript, .attachAudio, .deleteAudio, .stashFromMessage: .messageNotFound(saved.message.id)
            case .deleteStashItem: .stashItemNotFound(saved.stashed.id)
            }
        }
    }

    @Test("another owner's id is not found, and nothing of the first owner's changes",
          arguments: Trespass.allCases, [OwnershipTests.bob, Owner.local])
    func otherOwnersIDs(_ trespass: Trespass, intruder: Owner) throws {
        let fixture = try StoreFixture()
        let saved = try Self.saveAlices(fixture)
        let audio = try fixture.makeAudioFile("intruder.wav")
        let before = try fixture.store.exported(thread: nil, owner: Self.alice)

        if let expected = trespass.expected(saved) {
            let error = #expect(throws: StoreError.self) { _ = try trespass.run(fixture.store, saved, as: intruder, audio: audio) }
            #expect(error == expected)
            #expect(error?.isNotFound == true)
        } else {
            #expect(try trespass.run(fixture.store, saved, as: intruder, audio: audio) == nil)
        }

        #expect(try fixture.store.exported(thread: nil, owner: Self.alice) == before)
        #expect(try fixture.store.stashItems(owner: Self.alice) == [saved.stashed])
        #expect(fixture.exists(URL(fileURLWithPath: try #require(saved.message.audioPath))))
        #expect(try fixture.store.threads(owner: intruder).isEmpty)
        #expect(try fixture.store.stashItems(owner: intruder).isEmpty)
    }

    @Test("the owner itself can do all of it")
    func ownerCan() throws {
        let fixture = try StoreFixture()
        let saved = try Self.saveAlices(fixture)
        let alice = Self.alice
        #expect(try fixture.store.thread(saved.thread.id, owner: alice) == saved.thread)
        let renamed = try fixture.store.updateThread(saved.thread.id, owner: alice) {
            $0.title = "renamed"
            $0.settings.systemPrompt = "Be terse."
        }
        #expect(renamed.title == "renamed" && renamed.settings.systemPrompt == "Be terse.")
        #expect(try fixture.store.thread(saved.thread.id, owner: alice) == renamed)
        try fixture.store.editTranscript(message: saved.message.id, text: "hullo", owner: alice)
        #expect(try fixture.store.message(saved.message.id, owner: alice)?.transcript == "hullo")
        try fixture.store.deleteAudio(message: saved.message.id, owner: alice)
        try fixture.store.deleteStashItem(saved.stashed.id, owner: alice)
        try fixture.store.deleteThread(saved.thread.id, owner: alice)
        #expect(try fixture.store.threads(owner: alice).isEmpty)
    }

    @Test("lists, exports and the stash are each owner's own")
    func scopedLists() throws {
        let fixture = try StoreFixture()
        let local = try fixture.store.createThread(title: "mine", settings: ThreadSettings())
        try fixture.store.append(NewMessage(role: .user, text: "local words", images: [ImageAttachment(data: Data([1]), mimeType: "image/png")]), to: local.id)
        let saved = try Self.saveAlices(fixture)
        let bobs = try fixture.store.createThread(title: "bob's", settings: ThreadSettings(), owner: Self.bob)
        let note = try fixture.store.stash(NewStashItem(kind: "note", text: "local note"))

        #expect(try fixture.store.threads().map(\.thread.id) == [local.id])
        #expect(try fixture.store.threads(owner: Self.alice).map(\.thread.id) == [saved.thread.id])
        #expect(try fixture.store.threads(owner: Self.bob).map(\.thread.id) == [bobs.id])
        #expect(try fixture.store.threads(owner: .key("key-nobody")).isEmpty)

        let export = try fixture.store.exported(thread: nil)
        #expect(export.threads.map(\.id) == [local.id])
        #expect(export.threads.first?.messages.first?.images.count == 1)
        #expect(try fixture.store.exported(thread: nil, owner: Self.alice).threads.flatMap { $0.messages.map(\.text) } == ["hello"])

        #expect(try fixture.store.stashItems() == [note])
        #expect(try fixture.store.stashItems(owner: Self.alice) == [saved.stashed])
        #expect(try fixture.store.stashItems(owner: Self.bob).isEmpty)
        #expect(saved.stashed.threadID == saved.thread.id)
    }

    @Test("the owner is kept in its column as given: NULL for the local user")
    func ownerColumn() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        _ = try Self.saveAlices(fixture)
        let owners = try fixture.store.pool.read { db in
            try String?.fetchAll(db, sql: "SELECT owner FROM thread ORDER BY id") + String?.fetchAll(db, sql: "SELECT owner FROM stash_item")
        }
        #expect(owners == [nil, "key-a11ce", "key-a11ce"])
    }

    @Test("a journal writes its thread for its owner and cannot continue another's")
    func journal() async throws {
        let fixture = try StoreFixture()
        let journal = ThreadJournal(store: fixture.store, thread: nil, settings: ThreadSettings(), owner: Self.alice)
        try await journal.record(NewMessage(role: .user, text: "for alice"))
        let thread = try #require(await journal.thread)
        #expect(try fixture.store.threads(owner: Self.alice).map(\.thread.id) == [thread])
        #expect(try fixture.store.threads().isEmpty)
        #expect(try await ThreadJournal.history(of: thread, in: fixture.store, owner: Self.alice) == [.user("for alice")])
        await #expect(throws: StoreError.threadNotFound(thread)) { try await ThreadJournal.history(of: thread, in: fixture.store) }

        let stranger = ThreadJournal(store: fixture.store, thread: thread, settings: ThreadSettings(), owner: Self.bob)
        await #expect(throws: StoreError.threadNotFound(thread)) { try await stranger.record(NewMessage(role: .user, text: "hi")) }
        #expect(try fixture.store.messages(in: thread, owner: Self.alice).count == 1)
    }

    @Test("a v3 database keeps its rows, as the local user's")
    func migratesFromV3() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.appendingPathComponent("v3.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v3-message-images-structured-result")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO thread (id, title, created_at, updated_at, backend, system_prompt, max_tokens)
                VALUES (1, 'old', '2025-01-01 10:00:00.000', '2025-01-01 10:00:00.000', 'local', 'Be brief.', 64);
                INSERT INTO message (id, thread_id, created_at, role, text) VALUES (1, 1, '2025-01-01 10:00:00.000', 'user', 'hello');
                INSERT INTO stash_item (id, created_at, kind, text, thread_id, message_id)
                VALUES (1, '2025-01-01 10:00:01.000', 'note', 'kept', 1, 1);
                """)
        }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try store.diagnostics().appliedMigrations.last == "v5-response-cache")
        #expect(try store.threads().map(\.thread.title) == ["old"])
        #expect(try store.messages(in: 1).map(\.text) == ["hello"])
        #expect(try store.stashItems().map(\.text) == ["kept"])
        #expect(try store.threads(owner: Self.alice).isEmpty)
        #expect(try store.stashItems(owner: Self.alice).isEmpty)
        #expect(try store.message(1, owner: Self.alice) == nil)
        let indexes = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%owner%' ORDER BY name")
        }
        #expect(indexes == ["stash_item_on_owner", "thread_on_owner_updated_at"])
    }
}
