import Foundation
import ParleyCore
import ParleyStore
import Testing

@Suite("Threads and messages (SQLite and PostgreSQL)")
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

    @Test("a thread is created with its title and settings", arguments: StoreBackend.available)
    func createThread(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let settings = ThreadSettings(backend: "openai", modelPreset: "fast", systemPrompt: "Be brief.", maxTokens: 64)
            let thread = try await store.createThread(title: "Trip", settings: settings, owner: .local)
            #expect(thread.title == "Trip")
            #expect(thread.settings == settings)
            #expect(thread.createdAt == tested.clock.now())
            #expect(thread.updatedAt == thread.createdAt)
            #expect(try await store.thread(thread.id, owner: .local) == thread)
            #expect(try await store.thread(thread.id + 1, owner: .local) == nil)
        }
    }

    @Test("settings can be replaced, and a thread updated in one go", arguments: StoreBackend.available)
    func updateSettings(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let changed = ThreadSettings(backend: "ollama", modelPreset: nil, systemPrompt: "Speak French.", maxTokens: 32)
            try await store.updateSettings(changed, thread: thread.id, owner: .local)
            #expect(try await store.thread(thread.id, owner: .local)?.settings == changed)
            #expect(try await store.thread(thread.id, owner: .local)?.title == nil)

            tested.clock.advance(seconds: 5)
            let updated = try await store.updateThread(thread.id, owner: .local) {
                $0.title = "Français"
                $0.settings.modelPreset = "small"
                $0.id = 999
                $0.createdAt = .distantPast
            }
            #expect(updated.id == thread.id && updated.createdAt == thread.createdAt && updated.updatedAt == thread.updatedAt)
            #expect(updated.title == "Français" && updated.settings.modelPreset == "small" && updated.settings.maxTokens == 32)
            #expect(try await store.thread(thread.id, owner: .local) == updated)
        }
    }

    @Test("every field of a message is read back as appended, by another store on the same database", arguments: StoreBackend.available)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let user = try await store.append(Self.voiceTurn, to: thread.id, owner: .local)
            let reply = try await store.append(Self.interruptedReply, to: thread.id, owner: .local)

            let read = try await tested.reopen().messages(in: thread.id, owner: .local)
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
    }

    @Test("a typed turn with no optional fields reads back with empty values", arguments: StoreBackend.available)
    func minimalMessage(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let typed = NewMessage(role: .user, text: "hi", typedText: "hi")
            let saved = try await store.append(typed, to: thread.id, owner: .local)
            #expect(saved.content == typed)
            #expect(try await store.message(saved.id, owner: .local) == saved)
            #expect(saved.rawTranscript == nil && saved.usage == nil && saved.imageReferences.isEmpty)
            #expect(saved.timingsMs.isEmpty && !saved.interrupted && saved.transcript == nil)
        }
    }

    @Test("messages come back in append order, each thread its own", arguments: StoreBackend.available)
    func ordering(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let first = try await store.createThread(title: "one", settings: ThreadSettings(), owner: .local)
            let second = try await store.createThread(title: "two", settings: ThreadSettings(), owner: .local)
            for index in 0..<20 {
                let thread = index.isMultiple(of: 3) ? second : first
                try await store.append(NewMessage(role: index.isMultiple(of: 2) ? .user : .assistant, text: "m\(index)"), to: thread.id, owner: .local)
            }
            let expectedFirst = (0..<20).filter { !$0.isMultiple(of: 3) }.map { "m\($0)" }
            let expectedSecond = (0..<20).filter { $0.isMultiple(of: 3) }.map { "m\($0)" }
            #expect(try await store.messages(in: first.id, owner: .local).map(\.text) == expectedFirst)
            #expect(try await store.messages(in: second.id, owner: .local).map(\.text) == expectedSecond)
            let ids = try await store.messages(in: first.id, owner: .local).map(\.id)
            #expect(ids == ids.sorted())
        }
    }

    @Test("appending bumps the thread's last activity, and the list is newest first", arguments: StoreBackend.available)
    func lastActivity(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let older = try await store.createThread(title: "older", settings: ThreadSettings(), owner: .local)
            tested.clock.advance(seconds: 60)
            let newer = try await store.createThread(title: "newer", settings: ThreadSettings(), owner: .local)
            #expect(try await store.threads(owner: .local).map(\.thread.id) == [newer.id, older.id])

            tested.clock.advance(seconds: 60)
            let message = try await store.append(NewMessage(role: .user, text: "back again"), to: older.id, owner: .local)
            let updated = try await store.thread(older.id, owner: .local)
            #expect(updated?.updatedAt == message.createdAt)
            #expect(updated?.createdAt == older.createdAt)
            #expect(try await store.threads(owner: .local).map(\.thread.id) == [older.id, newer.id])
        }
    }

    @Test(
        "the list carries message counts and a one-line preview of the last user or assistant message",
        arguments: StoreBackend.available)
    func summaries(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let empty = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let busy = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            try await store.append(NewMessage(role: .system, text: "You are terse."), to: busy.id, owner: .local)
            try await store.append(NewMessage(role: .user, text: "Tell me a story"), to: busy.id, owner: .local)
            let long = String(repeating: "word ", count: 40) + "\nend"
            try await store.append(NewMessage(role: .assistant, text: long), to: busy.id, owner: .local)
            let systemOnly = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            try await store.append(NewMessage(role: .system, text: "only instructions"), to: systemOnly.id, owner: .local)

            let summaries = Dictionary(uniqueKeysWithValues: try await store.threads(owner: .local).map { ($0.thread.id, $0) })
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
    }

    @Test("editing a transcript keeps what was heard", arguments: StoreBackend.available)
    func editTranscript(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let heard = try await store.append(
                NewMessage(role: .user, text: "recognize speech", rawTranscript: "wreck a nice beach"), to: thread.id, owner: .local)
            try await store.editTranscript(message: heard.id, text: "recognize speech", owner: .local)
            let read = try #require(try await store.message(heard.id, owner: .local))
            #expect(read.rawTranscript == "wreck a nice beach")
            #expect(read.editedText == "recognize speech")
            #expect(read.transcript == "recognize speech")
            #expect(read.text == heard.text)
        }
    }

    @Test("deleting a thread deletes its messages and no other thread's", arguments: StoreBackend.available)
    func deleteCascades(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let doomed = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let kept = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let gone = try await store.append(NewMessage(role: .user, text: "bye"), to: doomed.id, owner: .local)
            let stays = try await store.append(NewMessage(role: .user, text: "stay"), to: kept.id, owner: .local)
            try await store.deleteThread(doomed.id, owner: .local)
            #expect(try await store.thread(doomed.id, owner: .local) == nil)
            #expect(try await store.message(gone.id, owner: .local) == nil)
            #expect(try await store.messages(in: kept.id, owner: .local) == [stays])
            #expect(try await store.threads(owner: .local).map(\.thread.id) == [kept.id])
            #expect(try await tested.rowCount("message") == 1)
            await #expect(throws: StoreError.threadNotFound(doomed.id)) { try await store.messages(in: doomed.id, owner: .local) }
        }
    }

    @Test("ids are not reused after a delete", arguments: StoreBackend.available)
    func idsNotReused(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let first = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await store.append(NewMessage(role: .user, text: "x"), to: first.id, owner: .local)
            try await store.deleteThread(first.id, owner: .local)
            let second = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            #expect(second.id > first.id)
            #expect(try await store.append(NewMessage(role: .user, text: "y"), to: second.id, owner: .local).id > message.id)
        }
    }
}
