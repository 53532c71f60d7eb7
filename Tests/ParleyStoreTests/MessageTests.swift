import Foundation
import ParleyCore
import ParleyStore
import Testing

@Suite("Threads and messages")
struct MessageTests {
    static let voiceTurn = NewMessage(
        role: .user,
        text: "What's the weather in Lyon?",
        rawTranscript: "what's the whether in lion",
        editedText: "What's the weather in Lyon?",
        imageReferences: ["/tmp/photo.jpg", "https://example.com/map.png"],
        provider: "whisper.cpp",
        timingsMs: ["vad": 12.5, "stt": 340.25])

    static let interruptedReply = NewMessage(
        role: .assistant,
        text: "It is sunny",
        provider: "openai",
        timingsMs: ["first_token": 180, "tts_first_audio": 95.5],
        usage: Usage(inputTokens: 42, cachedInputTokens: 10, outputTokens: 7),
        interrupted: true,
        fullReply: "It is sunny and 24 degrees, with a light wind from the south.")

    @Test("a thread is created with its title and settings")
    func createThread() throws {
        let fixture = try StoreFixture()
        let settings = ThreadSettings(backend: "openai", modelPreset: "fast", systemPrompt: "Be brief.", maxTokens: 64)
        let thread = try fixture.store.createThread(title: "Trip", settings: settings)
        #expect(thread.title == "Trip")
        #expect(thread.settings == settings)
        #expect(thread.createdAt == fixture.clock.now())
        #expect(thread.updatedAt == thread.createdAt)
        #expect(try fixture.store.thread(thread.id) == thread)
        #expect(try fixture.store.thread(thread.id + 1) == nil)
    }

    @Test("settings can be replaced")
    func updateSettings() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let changed = ThreadSettings(backend: "ollama", modelPreset: nil, systemPrompt: "Speak French.", maxTokens: 32)
        try fixture.store.updateSettings(changed, thread: thread.id)
        #expect(try fixture.store.thread(thread.id)?.settings == changed)
        #expect(try fixture.store.thread(thread.id)?.title == nil)
    }

    @Test("every field of a message is read back as appended")
    func roundTrip() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let user = try fixture.store.append(Self.voiceTurn, to: thread.id)
        let reply = try fixture.store.append(Self.interruptedReply, to: thread.id)

        let read = try fixture.reopen().messages(in: thread.id)
        #expect(read == [user, reply])
        #expect(read.map(\.content) == [Self.voiceTurn, Self.interruptedReply])
        #expect(read.allSatisfy { $0.threadID == thread.id && $0.audioPath == nil })
        #expect(read.first?.rawTranscript == "what's the whether in lion")
        #expect(read.first?.editedText == "What's the weather in Lyon?")
        #expect(read.last?.usage == Usage(inputTokens: 42, cachedInputTokens: 10, outputTokens: 7))
        #expect(read.last?.timingsMs == ["first_token": 180, "tts_first_audio": 95.5])
        #expect(read.last?.interrupted == true)
        #expect(read.last?.fullReply?.hasPrefix("It is sunny and 24 degrees") == true)
    }

    @Test("a typed turn with no optional fields reads back with empty values")
    func minimalMessage() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let typed = NewMessage(role: .user, text: "hi", typedText: "hi")
        let saved = try fixture.store.append(typed, to: thread.id)
        #expect(saved.content == typed)
        #expect(saved.rawTranscript == nil && saved.usage == nil && saved.imageReferences.isEmpty)
        #expect(saved.timingsMs.isEmpty && !saved.interrupted && saved.transcript == nil)
    }

    @Test("messages come back in append order, each thread its own")
    func ordering() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store.createThread(title: "one", settings: ThreadSettings())
        let second = try fixture.store.createThread(title: "two", settings: ThreadSettings())
        for index in 0..<20 {
            let thread = index.isMultiple(of: 3) ? second : first
            try fixture.store.append(NewMessage(role: index.isMultiple(of: 2) ? .user : .assistant, text: "m\(index)"), to: thread.id)
        }
        let expectedFirst = (0..<20).filter { !$0.isMultiple(of: 3) }.map { "m\($0)" }
        let expectedSecond = (0..<20).filter { $0.isMultiple(of: 3) }.map { "m\($0)" }
        #expect(try fixture.store.messages(in: first.id).map(\.text) == expectedFirst)
        #expect(try fixture.store.messages(in: second.id).map(\.text) == expectedSecond)
        let ids = try fixture.store.messages(in: first.id).map(\.id)
        #expect(ids == ids.sorted())
    }

    @Test("appending bumps the thread's last activity, and the list is newest first")
    func lastActivity() throws {
        let fixture = try StoreFixture()
        let older = try fixture.store.createThread(title: "older", settings: ThreadSettings())
        fixture.clock.advance(seconds: 60)
        let newer = try fixture.store.createThread(title: "newer", settings: ThreadSettings())
        #expect(try fixture.store.threads().map(\.thread.id) == [newer.id, older.id])

        fixture.clock.advance(seconds: 60)
        let message = try fixture.store.append(NewMessage(role: .user, text: "back again"), to: older.id)
        let updated = try fixture.store.thread(older.id)
        #expect(updated?.updatedAt == message.createdAt)
        #expect(updated?.createdAt == older.createdAt)
        #expect(try fixture.store.threads().map(\.thread.id) == [older.id, newer.id])
    }

    @Test("the list carries message counts and a one-line preview of the last user or assistant message")
    func summaries() throws {
        let fixture = try StoreFixture()
        let empty = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let busy = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.append(NewMessage(role: .system, text: "You are terse."), to: busy.id)
        try fixture.store.append(NewMessage(role: .user, text: "Tell me a story"), to: busy.id)
        let long = String(repeating: "word ", count: 40) + "\nend"
        try fixture.store.append(NewMessage(role: .assistant, text: long), to: busy.id)
        let systemOnly = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.append(NewMessage(role: .system, text: "only instructions"), to: systemOnly.id)

        let summaries = Dictionary(uniqueKeysWithValues: try fixture.store.threads().map { ($0.thread.id, $0) })
        #expect(summaries[empty.id]?.messageCount == 0)
        #expect(summaries[empty.id]?.lastMessagePreview == nil)
        #expect(summaries[systemOnly.id]?.messageCount == 1)
        #expect(summaries[systemOnly.id]?.lastMessagePreview == nil)
        #expect(summaries[busy.id]?.messageCount == 3)
        let preview = try #require(summaries[busy.id]?.lastMessagePreview)
        #expect(preview.count == ThreadSummary.previewLength)
        #expect(preview.hasPrefix("word word"))
        #expect(preview.hasSuffix("…"))
        #expect(!preview.contains("\n"))
    }

    @Test("editing a transcript keeps what was heard")
    func editTranscript() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let heard = try fixture.store.append(
            NewMessage(role: .user, text: "recognize speech", rawTranscript: "wreck a nice beach"), to: thread.id)
        try fixture.store.editTranscript(message: heard.id, text: "recognize speech")
        let read = try #require(try fixture.store.message(heard.id))
        #expect(read.rawTranscript == "wreck a nice beach")
        #expect(read.editedText == "recognize speech")
        #expect(read.transcript == "recognize speech")
        #expect(read.text == heard.text)
    }

    @Test("deleting a thread deletes its messages and no other thread's")
    func deleteCascades() throws {
        let fixture = try StoreFixture()
        let doomed = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let kept = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let gone = try fixture.store.append(NewMessage(role: .user, text: "bye"), to: doomed.id)
        let stays = try fixture.store.append(NewMessage(role: .user, text: "stay"), to: kept.id)
        try fixture.store.deleteThread(doomed.id)
        #expect(try fixture.store.thread(doomed.id) == nil)
        #expect(try fixture.store.message(gone.id) == nil)
        #expect(try fixture.store.messages(in: kept.id) == [stays])
        #expect(try fixture.store.threads().map(\.thread.id) == [kept.id])
        #expect(throws: StoreError.threadNotFound(doomed.id)) { try fixture.store.messages(in: doomed.id) }
    }

    @Test("ids are not reused after a delete")
    func idsNotReused() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.deleteThread(first.id)
        let second = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        #expect(second.id > first.id)
    }
}
