import Foundation
import ParleyCore
import ParleyStore
import Testing

@Suite("Export")
struct ExportTests {
    /// Two threads: a spoken exchange with an interrupted reply, and a typed one.
    func populated() throws -> (StoreFixture, StoredThread, StoredThread) {
        let fixture = try StoreFixture()
        let voice = try fixture.store.createThread(
            title: "Voice", settings: ThreadSettings(backend: "local", modelPreset: "smol", systemPrompt: "Be brief.", maxTokens: 99))
        try fixture.store.append(
            NewMessage(
                role: .user, text: "Is it raining?", rawTranscript: "is it reigning", editedText: "Is it raining?",
                provider: "whisper.cpp", timingsMs: ["stt": 120]), to: voice.id)
        try fixture.store.append(
            NewMessage(
                role: .assistant, text: "No,", usage: Usage(inputTokens: 5, outputTokens: 9),
                interrupted: true, fullReply: "No, it is dry today."), to: voice.id)
        fixture.clock.advance(seconds: 5)
        let typed = try fixture.store.createThread(title: nil, settings: ThreadSettings(backend: "openai"))
        try fixture.store.append(NewMessage(role: .user, text: "hello", typedText: "hello"), to: typed.id)
        return (fixture, voice, typed)
    }

    @Test("the export of all threads decodes to every thread with its messages")
    func allThreads() throws {
        let (fixture, voice, typed) = try populated()
        let data = try fixture.store.export(thread: nil)
        let export = try ConversationExport.decode(data)
        #expect(export.threads.map(\.id) == [typed.id, voice.id])
        let exportedVoice = try #require(export.threads.last)
        #expect(exportedVoice.title == "Voice")
        #expect(exportedVoice.settings == voice.settings)
        #expect(exportedVoice.messageCount == 2)
        #expect(exportedVoice.preview == "No,")
        let stored = try fixture.store.messages(in: voice.id)
        #expect(exportedVoice.messages.map(\.content) == stored.map(\.content))
        #expect(exportedVoice.messages.map(\.id) == stored.map(\.id))
        for (exported, original) in zip(exportedVoice.messages, stored) {
            #expect(abs(exported.createdAt.timeIntervalSince(original.createdAt)) < 0.001)
        }
        #expect(export.threads.first?.messages.map(\.typedText) == ["hello"])
    }

    @Test("the JSON uses snake_case keys, ISO-8601 dates and carries raw transcripts")
    func jsonShape() throws {
        let (fixture, voice, _) = try populated()
        let data = try fixture.store.export(thread: voice.id)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Array(root.keys) == ["threads"])
        let threads = try #require(root["threads"] as? [[String: Any]])
        #expect(threads.count == 1)
        let thread = try #require(threads.first)
        #expect(Set(thread.keys) == ["id", "title", "created_at", "updated_at", "message_count", "preview", "settings", "messages"])
        #expect(thread["created_at"] as? String == "2023-11-14T22:13:20.000Z")
        let settings = try #require(thread["settings"] as? [String: Any])
        #expect(Set(settings.keys) == ["backend", "model_preset", "system_prompt", "max_tokens"])
        let messages = try #require(thread["messages"] as? [[String: Any]])
        #expect(messages.first?["raw_transcript"] as? String == "is it reigning")
        #expect(messages.first?["edited_text"] as? String == "Is it raining?")
        #expect((messages.first?["timings_ms"] as? [String: Any])?["stt"] as? Double == 120)
        #expect(messages.last?["full_reply"] as? String == "No, it is dry today.")
        #expect(messages.last?["interrupted"] as? Bool == true)
        let usage = try #require(messages.last?["usage"] as? [String: Any])
        #expect(Set(usage.keys) == ["input_tokens", "cached_input_tokens", "output_tokens"])

        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\n  "), "pretty printed")
        #expect(
            text.range(of: "\"created_at\"")?.lowerBound ?? text.endIndex
                < text.range(of: "\"id\"")?.lowerBound ?? text.startIndex, "sorted keys")
    }

    @Test("absent values are written as null, so every thread and message has the same keys")
    func nullsKept() throws {
        let (fixture, _, typed) = try populated()
        let root = try #require(try JSONSerialization.jsonObject(with: fixture.store.export(thread: typed.id)) as? [String: Any])
        let thread = try #require((root["threads"] as? [[String: Any]])?.first)
        #expect(thread["title"] is NSNull)
        #expect((thread["settings"] as? [String: Any])?["model_preset"] is NSNull)
        let message = try #require((thread["messages"] as? [[String: Any]])?.first)
        #expect(message["raw_transcript"] is NSNull)
        #expect(message["usage"] is NSNull)
        #expect(message.count == 17)
    }

    @Test("an empty database exports no threads; an unknown thread is an error")
    func emptyAndUnknown() throws {
        let fixture = try StoreFixture()
        #expect(try ConversationExport.decode(fixture.store.export(thread: nil)).threads.isEmpty)
        #expect(throws: StoreError.threadNotFound(5)) { try fixture.store.export(thread: 5) }
    }
}
