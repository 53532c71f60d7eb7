import Foundation
import GRDB
import ParleyCore
import Testing
@testable import ParleyStore

@Suite("Images and structured results")
struct AttachmentTests {
    static let png = ImageAttachment(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]), mimeType: "image/png")
    static let jpeg = ImageAttachment(data: Data(repeating: 0xFF, count: 4096), mimeType: "image/jpeg")

    static let picture = NewMessage(
        role: .user, text: "Which of these is a cat?", typedText: "Which of these is a cat?", images: [png, jpeg],
        imageReferences: ["https://example.com/third.png"])

    static let structured = NewMessage(
        role: .assistant, text: #"{"animal":"cat","count":2}"#, provider: "openai (gpt-4o-mini)",
        usage: Usage(inputTokens: 800, outputTokens: 12),
        structuredResult: .object(["animal": .string("cat"), "count": .number(2), "sure": .bool(true), "notes": .null]))

    @Test("images come back in order, byte for byte, and the structured result as JSON, after reopening")
    func roundTrip() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let user = try fixture.store.append(Self.picture, to: thread.id)
        let reply = try fixture.store.append(Self.structured, to: thread.id)
        #expect(user.content == Self.picture)
        #expect(reply.content == Self.structured)

        let reopened = try fixture.reopen()
        #expect(try reopened.messages(in: thread.id).map(\.content) == [Self.picture, Self.structured])
        #expect(try reopened.message(user.id)?.images == [Self.png, Self.jpeg])
        #expect(try reopened.message(reply.id)?.structuredResult?["animal"] == .string("cat"))
    }

    @Test("the export carries images as base64 and the structured result as an object, and decodes to the same messages")
    func export() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.append(Self.picture, to: thread.id)
        try fixture.store.append(Self.structured, to: thread.id)
        let data = try fixture.store.export(thread: nil)
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

    @Test("images are deleted with their thread, and other threads keep theirs")
    func deletedWithThread() throws {
        let fixture = try StoreFixture()
        let doomed = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let kept = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.append(Self.picture, to: doomed.id)
        let stays = try fixture.store.append(NewMessage(role: .user, text: "mine", images: [Self.png]), to: kept.id)
        #expect(try imageRows(fixture.store) == 3)

        try fixture.store.deleteThread(doomed.id)
        #expect(try imageRows(fixture.store) == 1)
        #expect(try fixture.store.message(stays.id)?.images == [Self.png])
    }

    @Test("a database from before images opens, gains the new columns and keeps its messages")
    func migratesFromV2() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.appendingPathComponent("old.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v2-spending")
        try old.write { db in
            try db.execute(sql: """
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
        #expect(try store.diagnostics().appliedMigrations.last == "v5-response-cache")
        let messages = try store.messages(in: 1)
        #expect(messages.map(\.content) == [
            NewMessage(role: .user, text: "hello", rawTranscript: "hello", imageReferences: ["/tmp/a.png"], timingsMs: ["stt": 12]),
            NewMessage(role: .assistant, text: "hi", usage: Usage(inputTokens: 5, outputTokens: 1)),
        ])
        let added = try store.append(Self.picture, to: 1)
        #expect(try store.message(added.id)?.images.count == 2)
    }

    @Test("the journal keeps a turn's images and result, and history gives the images back to the model")
    func journal() async throws {
        let fixture = try StoreFixture()
        let journal = ThreadJournal(store: fixture.store, thread: nil, settings: ThreadSettings())
        try await journal.record(Self.picture)
        try await journal.record(Self.structured)
        let thread = try #require(await journal.thread)
        #expect(try fixture.store.messages(in: thread).map(\.content) == [Self.picture, Self.structured])
        let history = try await ThreadJournal.history(of: thread, in: fixture.store)
        #expect(history.first == ChatMessage(role: .user, parts: [.text("Which of these is a cat?"), Self.png.part, Self.jpeg.part]))
        #expect(history.last == .assistant(#"{"animal":"cat","count":2}"#))
    }

    private func imageRows(_ store: ConversationStore) throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message_image") ?? -1 }
    }
}
