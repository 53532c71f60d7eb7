import Foundation
import GRDB
import ParleyCore
import Testing
@testable import ParleyStore

@Suite("Owners: each sees only its own threads, messages, audio and stash (SQLite and PostgreSQL)")
struct OwnershipTests {
    static let alice = Owner.key("key-a11ce")
    static let bob = Owner.key("key-b0b")

    /// Alice's thread with one message (with kept audio) and one stash item.
    struct Saved {
        var thread: StoredThread
        var message: StoredMessage
        var stashed: StashItem
    }

    static func saveAlices(_ tested: StoreUnderTest) async throws -> Saved {
        let store = tested.store
        let thread = try await store.createThread(title: "alice's", settings: ThreadSettings(), owner: alice)
        let message = try await store.append(NewMessage(role: .user, text: "hello", rawTranscript: "hello"), to: thread.id, owner: alice)
        try await store.attachAudio(message: message.id, file: try tested.makeAudioFile("alice.wav"), owner: alice)
        let stashed = try await store.stash(NewStashItem(kind: "note", text: "hers", messageID: message.id), owner: alice)
        return Saved(thread: thread, message: try #require(try await store.message(message.id, owner: alice)), stashed: stashed)
    }

    /// Every call that names one of Alice's ids, made by someone else.
    enum Trespass: String, CaseIterable, CustomTestStringConvertible {
        case thread, messages, export, updateSettings, updateThread, deleteThread, append
        case message, editTranscript, attachAudio, audio, deleteAudio
        case stashFromThread, stashFromMessage, deleteStashItem

        var testDescription: String { rawValue }

        /// Runs the call as `owner`; returns what a lookup found (calls that throw return nil).
        func run(_ store: any ConversationStoring, _ saved: Saved, as owner: Owner, audio: URL) async throws -> Any? {
            let thread = saved.thread.id
            let message = saved.message.id
            switch self {
            case .thread: return try await store.thread(thread, owner: owner)
            case .messages: _ = try await store.messages(in: thread, owner: owner)
            case .export: _ = try await store.exported(thread: thread, owner: owner)
            case .updateSettings: try await store.updateSettings(ThreadSettings(maxTokens: 1), thread: thread, owner: owner)
            case .updateThread: try await store.updateThread(thread, owner: owner) { $0.title = "taken" }
            case .deleteThread: try await store.deleteThread(thread, owner: owner)
            case .append: try await store.append(NewMessage(role: .user, text: "intruder"), to: thread, owner: owner)
            case .message: return try await store.message(message, owner: owner)
            case .editTranscript: try await store.editTranscript(message: message, text: "changed", owner: owner)
            case .attachAudio: try await store.attachAudio(message: message, file: audio, owner: owner)
            case .audio: _ = try await store.audio(message: message, owner: owner)
            case .deleteAudio: try await store.deleteAudio(message: message, owner: owner)
            case .stashFromThread: try await store.stash(NewStashItem(kind: "note", text: "x", threadID: thread), owner: owner)
            case .stashFromMessage: try await store.stash(NewStashItem(kind: "reply", text: "x", messageID: message), owner: owner)
            case .deleteStashItem: try await store.deleteStashItem(saved.stashed.id, owner: owner)
            }
            return nil
        }

        /// The error the call fails with; `nil` for the lookups, which find nothing.
        func expected(_ saved: Saved) -> StoreError? {
            switch self {
            case .thread, .message: nil
            case .messages, .export, .updateSettings, .updateThread, .deleteThread, .append, .stashFromThread:
                .threadNotFound(saved.thread.id)
            case .editTranscript, .attachAudio, .audio, .deleteAudio, .stashFromMessage: .messageNotFound(saved.message.id)
            case .deleteStashItem: .stashItemNotFound(saved.stashed.id)
            }
        }
    }

    @Test(
        "another owner's id is not found, and nothing of the first owner's changes",
        arguments: Trespass.allCases, StoreBackend.available)
    func otherOwnersIDs(_ trespass: Trespass, backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let saved = try await Self.saveAlices(tested)
            let audio = try tested.makeAudioFile("intruder.wav")
            let before = try await store.exported(thread: nil, owner: Self.alice)

            for intruder in [Self.bob, Owner.local] {
                if let expected = trespass.expected(saved) {
                    let error = await #expect(throws: StoreError.self) { _ = try await trespass.run(store, saved, as: intruder, audio: audio) }
                    #expect(error == expected)
                    #expect(error?.isNotFound == true)
                } else {
                    #expect(try await trespass.run(store, saved, as: intruder, audio: audio) == nil)
                }
                #expect(try await store.threads(owner: intruder).isEmpty)
                #expect(try await store.stashItems(owner: intruder).isEmpty)
            }

            #expect(try await store.exported(thread: nil, owner: Self.alice) == before)
            #expect(try await store.stashItems(owner: Self.alice) == [saved.stashed])
            #expect(tested.exists(URL(fileURLWithPath: try #require(saved.message.audioPath))))
            #expect(try await store.audio(message: saved.message.id, owner: Self.alice) == Data("RIFF....WAVE".utf8))
        }
    }

    @Test("the owner itself can do all of it", arguments: StoreBackend.available)
    func ownerCan(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let saved = try await Self.saveAlices(tested)
            let alice = Self.alice
            #expect(try await store.thread(saved.thread.id, owner: alice) == saved.thread)
            let renamed = try await store.updateThread(saved.thread.id, owner: alice) {
                $0.title = "renamed"
                $0.settings.systemPrompt = "Be terse."
            }
            #expect(renamed.title == "renamed" && renamed.settings.systemPrompt == "Be terse.")
            #expect(try await store.thread(saved.thread.id, owner: alice) == renamed)
            try await store.editTranscript(message: saved.message.id, text: "hullo", owner: alice)
            #expect(try await store.message(saved.message.id, owner: alice)?.transcript == "hullo")
            try await store.deleteAudio(message: saved.message.id, owner: alice)
            try await store.deleteStashItem(saved.stashed.id, owner: alice)
            try await store.deleteThread(saved.thread.id, owner: alice)
            #expect(try await store.threads(owner: alice).isEmpty)
        }
    }

    @Test("lists, exports and the stash are each owner's own", arguments: StoreBackend.available)
    func scopedLists(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let local = try await store.createThread(title: "mine", settings: ThreadSettings(), owner: .local)
            let picture = NewMessage(role: .user, text: "local words", images: [ImageAttachment(data: Data([1]), mimeType: "image/png")])
            try await store.append(picture, to: local.id, owner: .local)
            let saved = try await Self.saveAlices(tested)
            let bobs = try await store.createThread(title: "bob's", settings: ThreadSettings(), owner: Self.bob)
            let note = try await store.stash(NewStashItem(kind: "note", text: "local note"), owner: .local)

            #expect(try await store.threads(owner: .local).map(\.thread.id) == [local.id])
            #expect(try await store.threads(owner: Self.alice).map(\.thread.id) == [saved.thread.id])
            #expect(try await store.threads(owner: Self.bob).map(\.thread.id) == [bobs.id])
            #expect(try await store.threads(owner: .key("key-nobody")).isEmpty)

            let export = try await store.exported(thread: nil, owner: .local)
            #expect(export.threads.map(\.id) == [local.id])
            #expect(export.threads.first?.messages.first?.images.count == 1)
            #expect(try await store.exported(thread: nil, owner: Self.alice).threads.flatMap { $0.messages.map(\.text) } == ["hello"])

            #expect(try await store.stashItems(owner: .local) == [note])
            #expect(try await store.stashItems(owner: Self.alice) == [saved.stashed])
            #expect(try await store.stashItems(owner: Self.bob).isEmpty)
            #expect(saved.stashed.threadID == saved.thread.id)
        }
    }

    @Test("a journal writes its thread for its owner and cannot continue another's", arguments: StoreBackend.available)
    func journal(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let journal = ThreadJournal(store: store, thread: nil, settings: ThreadSettings(), owner: Self.alice)
            try await journal.record(NewMessage(role: .user, text: "for alice"))
            let thread = try #require(await journal.thread)
            #expect(try await store.threads(owner: Self.alice).map(\.thread.id) == [thread])
            #expect(try await store.threads(owner: .local).isEmpty)
            #expect(try await ThreadJournal.history(of: thread, in: store, owner: Self.alice) == [.user("for alice")])
            await #expect(throws: StoreError.threadNotFound(thread)) { try await ThreadJournal.history(of: thread, in: store) }

            let stranger = ThreadJournal(store: store, thread: thread, settings: ThreadSettings(), owner: Self.bob)
            await #expect(throws: StoreError.threadNotFound(thread)) { try await stranger.record(NewMessage(role: .user, text: "hi")) }
            #expect(try await store.messages(in: thread, owner: Self.alice).count == 1)
        }
    }

    @Test("entries recorded at once all land, in one thread", arguments: StoreBackend.available)
    func journalOrder(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let journal = ThreadJournal(store: tested.store, thread: nil, settings: ThreadSettings(), owner: Self.alice)
            // The writes overlap: only the first may create the thread.
            var writes: [Task<Void, any Error>] = []
            for index in 0..<12 {
                writes.append(Task { try await journal.record(NewMessage(role: .user, text: "turn \(index)")) })
                await Task.yield()
            }
            for write in writes { try await write.value }
            let threads = try await tested.store.threads(owner: Self.alice)
            #expect(threads.count == 1)
            let texts = try await tested.store.messages(in: try #require(threads.first).thread.id, owner: Self.alice).map(\.text)
            #expect(Set(texts) == Set((0..<12).map { "turn \($0)" }))
        }
    }

    @Test("SQLite keeps the owner in its column as given: NULL for the local user")
    func ownerColumn() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let thread = try fixture.store.createThread(title: "alice's", settings: ThreadSettings(), owner: Self.alice)
        _ = try fixture.store.stash(NewStashItem(kind: "note", text: "hers", threadID: thread.id), owner: Self.alice)
        let owners = try fixture.store.pool.read { db in
            try String?.fetchAll(db, sql: "SELECT owner FROM thread ORDER BY id") + String?.fetchAll(db, sql: "SELECT owner FROM stash_item")
        }
        #expect(owners == [nil, "key-a11ce", "key-a11ce"])
    }

    @Test("a v3 SQLite database keeps its rows, as the local user's")
    func migratesFromV3() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.appendingPathComponent("v3.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v3-message-images-structured-result")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (id, title, created_at, updated_at, backend, system_prompt, max_tokens)
                    VALUES (1, 'old', '2025-01-01 10:00:00.000', '2025-01-01 10:00:00.000', 'local', 'Be brief.', 64);
                    INSERT INTO message (id, thread_id, created_at, role, text) VALUES (1, 1, '2025-01-01 10:00:00.000', 'user', 'hello');
                    INSERT INTO stash_item (id, created_at, kind, text, thread_id, message_id)
                    VALUES (1, '2025-01-01 10:00:01.000', 'note', 'kept', 1, 1);
                    """)
        }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try store.diagnostics().appliedMigrations.last == "v10-material-vectors")
        #expect(try store.threads().map(\.thread.title) == ["old"])
        #expect(try store.messages(in: 1).map(\.text) == ["hello"])
        #expect(try store.stashItems().map(\.text) == ["kept"])
        #expect(try store.threads(owner: Self.alice).isEmpty)
        #expect(try store.stashItems(owner: Self.alice).isEmpty)
        #expect(try store.message(1, owner: Self.alice) == nil)
        let indexes = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%owner%' ORDER BY name")
        }
        #expect(
            indexes == [
                "assignment_on_owner_due", "assignment_on_owner_origin", "material_on_owner", "material_on_owner_origin",
                "stash_item_on_owner", "sync_state_on_owner_key", "thread_on_owner_updated_at",
            ])
    }
}
