import Foundation
import GRDB
import ParleyCore
import Testing
@testable import ParleyStore

@Suite("Images and structured results (SQLite and PostgreSQL)")
struct AttachmentTests {
    static let png = ImageAttachment(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]), mimeType: "image/png")
    static let jpeg = ImageAttachment(data: Data(repeating: 0xFF, count: 4096), mimeType: "image/jpeg")

    static let picture = NewMessage(
        role: .user, text: "Which of these is a cat?", typedText: "Which of these is a cat?", images: [png, jpeg],
        imageReferences: ["https://example.com/third.png"])

    static let structured = NewMessage(
        role: .assistant, text: #"{"animal":"cat","count":2}"#, provider: "openai (gpt-4o-mini)",
        usage: Usage(inputTokens: 800, outputTokens: 12),
        structuredResult: .object([
            "animal": .string("cat"), "count": .number(2), "sure": .bool(true), "notes": .null,
            "list": .array([.number(1.5), .string("two")]),
        ]))

    @Test(
        "images come back in order, byte for byte, and the structured result as JSON, after reopening",
        arguments: StoreBackend.available)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let user = try await store.append(Self.picture, to: thread.id, owner: .local)
            let reply = try await store.append(Self.structured, to: thread.id, owner: .local)
            #expect(user.content == Self.picture)
            #expect(reply.content == Self.structured)

            let reopened = try await tested.reopen()
            #expect(try await reopened.messages(in: thread.id, owner: .local).map(\.content) == [Self.picture, Self.structured])
            #expect(try await reopened.message(user.id, owner: .local)?.images == [Self.png, Self.jpeg])
            #expect(try await reopened.message(reply.id, owner: .local)?.structuredResult == Self.structured.structuredResult)
        }
    }

    @Test(
        "the export carries images as base64 and the structured result as an object, and decodes to the same messages",
        arguments: StoreBackend.available)
    func export(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            try await store.append(Self.picture, to: thread.id, owner: .local)
            try await store.append(Self.structured, to: thread.id, owner: .local)
            let data = try await store.exported(thread: nil, owner: .local).jsonData()
            #expect(try ConversationExport.decode(data).threads.first?.messages.map(\.content) == [Self.picture, Self.structured])

            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let messages = try #require((root["threads"] as? [[String: Any]])?.first?["messages"] as? [[String: Any]])
            let images = try #require(messages.first?["images"] as? [[String: Any]])
            #expect(images.map { $0["mime_type"] as? String } == ["image/png", "image/jpeg"])
            #expect(images.first?["data"] as? String == Self.png.data.base64EncodedString())
            let result = try #require(messages.last?["structured_result"] as? [String: Any])
            #expect(result["animal"] as? String == "cat")
            #expect(messages.first?["structured_result"] is NSNull)
        }
    }

    @Test("images are deleted with their thread, and other threads keep theirs", arguments: StoreBackend.available)
    func deletedWithThread(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let doomed = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let kept = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            try await store.append(Self.picture, to: doomed.id, owner: .local)
            let stays = try await store.append(NewMessage(role: .user, text: "mine", images: [Self.png]), to: kept.id, owner: .local)
            #expect(try await tested.rowCount("message_image") == 3)

            try await store.deleteThread(doomed.id, owner: .local)
            #expect(try await tested.rowCount("message_image") == 1)
            #expect(try await store.message(stays.id, owner: .local)?.images == [Self.png])
        }
    }

    @Test(
        "the journal keeps a turn's images and result, and history gives the images back to the model",
        arguments: StoreBackend.available)
    func journal(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let journal = ThreadJournal(store: store, thread: nil, settings: ThreadSettings())
            try await journal.record(Self.picture)
            try await journal.record(Self.structured)
            let thread = try #require(await journal.thread)
            #expect(try await store.messages(in: thread, owner: .local).map(\.content) == [Self.picture, Self.structured])
            let history = try await ThreadJournal.history(of: thread, in: store)
            #expect(history.first == ChatMessage(role: .user, parts: [.text("Which of these is a cat?"), Self.png.part, Self.jpeg.part]))
            #expect(history.last == .assistant(#"{"animal":"cat","count":2}"#))
        }
    }

    @Test("a SQLite database from before images opens, gains the new columns and keeps its messages")
    func migratesFromV2() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.appendingPathComponent("old.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v2-spending")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (id, title, created_at, updated_at, backend, system_prompt, max_tokens)
                    VALUES (1, 'old', '2025-01-01 10:00:00.000', '2025-01-01 10:00:00.000', 'local', 'Be brief.', 64);
                    INSERT INTO message (thread_id, created_at, role, text, raw_transcript, image_references, timings_ms, usage)
                    VALUES (1, '2025-01-01 10:00:00.000', 'user', 'hello', 'hello', '["/tmp/a.png"]', '{"stt":12}', NULL),
                           (1, '2025-01-01 10:00:01.000', 'assistant', 'hi', NULL, '[]', '{}',
                            '{"cached_input_tokens":0,"input_tokens":5,"output_tokens":1}');
                    """)
        }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try store.diagnostics().appliedMigrations.last == "v10-material-vectors")
        let messages = try store.messages(in: 1)
        #expect(
            messages.map(\.content) == [
                NewMessage(role: .user, text: "hello", rawTranscript: "hello", imageReferences: ["/tmp/a.png"], timingsMs: ["stt": 12]),
                NewMessage(role: .assistant, text: "hi", usage: Usage(inputTokens: 5, outputTokens: 1)),
            ])
        let added = try store.append(Self.picture, to: 1)
        #expect(try store.message(added.id)?.images.count == 2)
    }
}
