import Foundation
import ParleyCore
import ParleyPostgres
import ParleyStore
import ParleyTestServers
import Testing

/// Moving a SQLite store into PostgreSQL (`parley store copy`): ``ConversationStore/contents()``
/// reads everything, `PostgresConversationStore.importContents` writes it in one transaction.
@Suite("copying a SQLite store into PostgreSQL")
struct StoreCopyTests {
    static let key = Owner.key("key-0123456789abcdef")

    /// A SQLite store with two owners and something of every kind, on a clock that moves
    /// whole seconds (so that every date survives both databases exactly).
    struct Filled {
        let fixture: StoreFixture
        let recording: URL
        var store: ConversationStore { fixture.store }
    }

    static func filled() throws -> Filled {
        let fixture = try StoreFixture()
        let store = fixture.store
        let tick = { fixture.clock.advance(seconds: 1) }
        let png = ImageAttachment(data: Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3]), mimeType: "image/png")
        let jpeg = ImageAttachment(data: Data([0xFF, 0xD8, 0xFF, 9, 8, 7]), mimeType: "image/jpeg")

        let trip = try store.createThread(
            title: "Trip", settings: ThreadSettings(backend: "openai", modelPreset: "fast", systemPrompt: "Be brief.", maxTokens: 300))
        tick()
        let question = try store.append(
            ConversationMessage(
                role: .user, text: "what is the capitol of france", rawTranscript: "what is the capitol of france",
                images: [png, jpeg], imageReferences: ["photo-1"], timingsMs: ["stt": 412.5]), to: trip.id)
        try store.editTranscript(message: question.id, text: "what is the capital of France")
        let recording = try fixture.makeAudioFile("turn-1.wav")
        try store.attachAudio(message: question.id, file: recording)
        tick()
        let answer = try store.append(
            ConversationMessage(
                role: .assistant, text: "Paris.", provider: "openai", timingsMs: ["llm": 820, "tts": 95.25],
                usage: Usage(inputTokens: 30, cachedInputTokens: 4, outputTokens: 2), interrupted: true,
                fullReply: "Paris. It has been the capital since", structuredResult: .string("Paris")), to: trip.id)
        tick()
        let typed = try store.createThread(title: nil, settings: ThreadSettings())
        try store.append(ConversationMessage(role: .system, text: "You are a tutor."), to: typed.id)
        try store.append(ConversationMessage(role: .user, text: "Explain fractions", typedText: "Explain fractions"), to: typed.id)
        tick()
        try store.stash(NewStashItem(kind: "reply", text: "Paris.", messageID: answer.id))
        try store.stash(NewStashItem(kind: "note", text: "pack an umbrella"))
        try store.addMaterial(NewMaterial(title: "Notes", kind: "text", source: "notes.txt", text: "Fractions are parts.", pageCount: 1, readBy: "file"))
        try store.saveMaterial(
            NewMaterial(
                title: "Essay", kind: "pdf", source: "drive", text: "Page one.\n\nPage two.", pageCount: 2,
                readBy: "pdftotext", origin: "drive:essay"))
        try store.saveAssignment(
            NewAssignment(
                origin: "calendar:main/e1", source: "calendar", title: "Essay due", details: "Two pages",
                dueDay: "2023-11-20", dueAt: Date(timeIntervalSince1970: 1_700_500_000), link: "https://example.com/e1"))
        try store.saveAssignment(NewAssignment(origin: "gmail:m1#0", source: "gmail", title: "Quiz", dueDay: "2023-11-21"))
        try store.setSyncState("google.drive.page-token", to: "42")
        try store.setSyncState("google.oauth", to: #"{"refresh_token":"secret"}"#)
        tick()

        let hers = try store.createThread(title: "Hers", settings: ThreadSettings(), owner: key)
        let hello = try store.append(ConversationMessage(role: .user, text: "hola", rawTranscript: "ola"), to: hers.id, owner: key)
        try store.editTranscript(message: hello.id, text: "hola", owner: key)
        try store.stash(NewStashItem(kind: "transcript", text: "hola", threadID: hers.id, messageID: hello.id), owner: key)
        try store.addMaterial(
            NewMaterial(title: "Spanish", kind: "markdown", source: "es.md", text: "# Hola", pageCount: 1, readBy: "file"),
            owner: key)
        try store.saveAssignment(
            NewAssignment(origin: "calendar:main/e2", source: "calendar", title: "Oral exam", dueDay: "2023-12-01"),
            owner: key)
        try store.setSyncState("google.calendar.sync-token", to: "abc", owner: key)
        tick()
        // A turn after the other owner's: ids interleave between owners, as they do in use.
        try store.append(ConversationMessage(role: .user, text: "and Italy?"), to: trip.id)

        try store.record(cost: 0.25, provider: "openai", at: fixture.clock.now())
        try store.record(cost: 0.5, provider: "anthropic", at: fixture.clock.now().addingTimeInterval(60))
        try store.cacheResponse(
            CachedResponse(
                key: "k", body: Data("{}".utf8), createdAt: fixture.clock.now(),
                expiresAt: fixture.clock.now().addingTimeInterval(3_600)))
        return Filled(fixture: fixture, recording: recording)
    }

    @Test("contents() reads every owner's rows in the order they were saved, and the ledger; not the response cache")
    func contents() throws {
        let filled = try Self.filled()
        let contents = try filled.store.contents()
        #expect(contents.owners.map(\.owner) == [.local, Self.key])
        let local = try #require(contents.owners.first)
        #expect(local.threads.map(\.title) == ["Trip", nil])
        #expect(local.threads.first?.messages.map(\.text) == ["what is the capitol of france", "Paris.", "and Italy?"])
        #expect(local.stash.map(\.kind) == ["reply", "note"])
        #expect(local.materials.map(\.title) == ["Notes", "Essay"])
        #expect(local.syncState.map(\.key) == ["google.drive.page-token", "google.oauth"])
        #expect(contents.spending.map(\.provider) == ["openai", "anthropic"])
        var expected = StoreCounts()
        (expected.owners, expected.threads, expected.messages, expected.images, expected.recordings) = (2, 3, 6, 2, 1)
        (expected.stashItems, expected.materials, expected.assignments, expected.syncValues, expected.spendingCharges) = (3, 3, 3, 3, 2)
        #expect(contents.counts == expected)
        // A sync value is a secret: its description leaves it out.
        #expect(!"\(local.syncState)".contains("secret"))
    }

    @Test("an empty store has no contents")
    func emptyContents() throws {
        let fixture = try StoreFixture()
        let contents = try fixture.store.contents()
        #expect(contents == StoreContents(owners: [], spending: []))
        #expect(contents.counts == StoreCounts())
    }

    @Test("the refusal of a non-empty target is one sentence saying what to do")
    func refusalSentence() {
        let error = StoreError.targetNotEmpty(location: "postgresql://parley@db:5432/parley", owners: ["local", "the spending ledger"])
        #expect(error.description.contains("postgresql://parley@db:5432/parley already holds"))
        #expect(error.description.contains("local, the spending ledger"))
        #expect(error.description.contains("pass --into-nonempty"))
        #expect(!error.description.contains("\n") && !error.description.dropLast().contains(". "))
    }

    @Test("a URL that is not PostgreSQL's gives the reason alone, for a caller that names the option itself")
    func badURLReason() {
        #expect(throws: StoreError.self) { try DatabaseURL(parsing: "mysql://parley@db/parley") }
        do {
            _ = try DatabaseURL(parsing: "mysql://parley@db/parley")
        } catch {
            #expect(error.reason == "only postgres:// and postgresql:// URLs are supported")
            #expect(!error.isConnectionFailure)
        }
    }
}

/// The copy itself, on the test PostgreSQL server.
extension StoreCopyTests {
    @Suite("into a real PostgreSQL", .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
    struct IntoPostgres {
        /// A fresh PostgreSQL store on its own database, dropped after `body`.
        func withTarget(_ body: (PostgresConversationStore, DatabaseURL) async throws -> Void) async throws {
            let server = try TestPostgres.serverOrSkip()
            let database = try await TestPostgres.createDatabase(on: server)
            let store: PostgresConversationStore
            do {
                store = try await PostgresConversationStore.open(database)
            } catch {
                try? await TestPostgres.dropDatabase(database, on: server)
                throw error
            }
            do {
                try await body(store, database)
            } catch {
                await store.close()
                try? await TestPostgres.dropDatabase(database, on: server)
                throw error
            }
            await store.close()
            try await TestPostgres.dropDatabase(database, on: server)
        }

        /// `thread` with the ids the copy gave it and its messages.
        func renumbered(_ thread: ExportedThread, _ imported: ImportedContents) throws -> ExportedThread {
            var thread = thread
            thread.id = try #require(imported.threadIDs[thread.id])
            thread.messages = try thread.messages.map { message in
                var message = message
                message.id = try #require(imported.messageIDs[message.id])
                message.threadID = thread.id
                return message
            }
            return thread
        }

        @Test("everything arrives: threads and messages (transcripts, images, recordings, usage), stash, materials, assignments, sync state, spending")
        func copiesEverything() async throws {
            let filled = try StoreCopyTests.filled()
            let sqlite = filled.store
            let contents = try sqlite.contents()
            try await withTarget { postgres, database in
                let imported = try await postgres.importContents(contents)
                #expect(imported.counts == contents.counts)
                #expect(imported.threadIDs.count == 3 && imported.messageIDs.count == 6)

                for owner in [Owner.local, StoreCopyTests.key] {
                    // Threads, newest activity first, each message field for field, dates included.
                    let expected = try sqlite.exported(thread: nil, owner: owner).threads.map { try renumbered($0, imported) }
                    let copied = try await postgres.exported(thread: nil, owner: owner).threads
                    #expect(copied == expected)
                    #expect(
                        try await postgres.threads(owner: owner)
                            == (try sqlite.threads(owner: owner)).map { summary in
                                var summary = summary
                                summary.thread.id = imported.threadIDs[summary.thread.id] ?? -1
                                return summary
                            })

                    // The stash, pointing at the copied thread and message.
                    let stash = try sqlite.stashItems(owner: owner).map { item in
                        StashItem(
                            id: 0, createdAt: item.createdAt, kind: item.kind, text: item.text,
                            threadID: item.threadID.flatMap { imported.threadIDs[$0] }, messageID: item.messageID.flatMap { imported.messageIDs[$0] })
                    }
                    let copiedStash = try await postgres.stashItems(owner: owner)
                    #expect(
                        copiedStash.map {
                            StashItem(
                                id: 0, createdAt: $0.createdAt, kind: $0.kind, text: $0.text, threadID: $0.threadID,
                                messageID: $0.messageID)
                        } == stash)
                    // Each owner stashed one item from a message.
                    #expect(copiedStash.count { $0.messageID != nil && $0.threadID != nil } == 1)

                    func unnumbered(_ material: Material) -> Material { var material = material; material.id = 0; return material }
                    #expect(try await postgres.materials(owner: owner).map(unnumbered) == (try sqlite.materials(owner: owner)).map(unnumbered))
                    func unnumbered(_ assignment: Assignment) -> Assignment { var assignment = assignment; assignment.id = 0; return assignment }
                    #expect(try await postgres.assignments(owner: owner).map(unnumbered) == (try sqlite.assignments(owner: owner)).map(unnumbered))

                    let keys = contents.owners.first { $0.owner == owner }?.syncState.map(\.key) ?? []
                    #expect(!keys.isEmpty)
                    for key in keys {
                        #expect(try await postgres.syncState(key, owner: owner) == (try sqlite.syncState(key, owner: owner)))
                    }
                }

                // The recording's bytes are in the database, under the copied message.
                let question = try #require(contents.owners.first?.threads.first?.messages.first)
                #expect(question.audioPath == filled.recording.standardizedFileURL.path)
                let copiedQuestion = try #require(imported.messageIDs[question.id])
                #expect(try await postgres.audio(message: copiedQuestion, owner: .local) == (try Data(contentsOf: filled.recording)))
                #expect(try await postgres.message(copiedQuestion, owner: .local)?.editedText == "what is the capital of France")
                #expect(try await postgres.message(copiedQuestion, owner: StoreCopyTests.key) == nil)

                let always = (Date.distantPast, Date.distantFuture)
                #expect(try await postgres.spent(from: always.0, to: always.1) == 0.75)
                #expect(try await postgres.spent(from: always.0, to: always.1) == (try sqlite.spent(from: always.0, to: always.1)))
                #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM response_cache", on: database) == 0)

                // New rows continue after the copied ones.
                let next = try await postgres.createThread(title: "after", settings: ThreadSettings(), owner: .local)
                #expect(imported.threadIDs.values.allSatisfy { $0 < next.id })
            }
        }

        @Test("a second copy into the same database is refused and changes nothing; --into-nonempty adds to it")
        func refusesNonEmpty() async throws {
            let filled = try StoreCopyTests.filled()
            let contents = try filled.store.contents()
            try await withTarget { postgres, database in
                try await postgres.importContents(contents)
                let tables = ["thread", "message", "message_image", "message_audio", "stash_item", "material", "assignment", "sync_state", "spending"]
                func rows() async throws -> [Int] {
                    var counts: [Int] = []
                    for table in tables { counts.append(try await TestPostgres.integer("SELECT COUNT(*) FROM \(table)", on: database)) }
                    return counts
                }
                let before = try await rows()
                #expect(before == [3, 6, 2, 1, 3, 3, 3, 3, 2])
                await #expect(throws: StoreError.targetNotEmpty(location: postgres.location, owners: ["local", "key-0123456789abcdef", "the spending ledger"]))
                {
                    try await postgres.importContents(contents)
                }
                #expect(try await rows() == before)

                // Only the other owner's rows (no ledger) in the database: still refused, naming it.
                let hers = StoreContents(owners: contents.owners.filter { $0.owner == StoreCopyTests.key }, spending: [])
                await #expect(throws: StoreError.targetNotEmpty(location: postgres.location, owners: ["key-0123456789abcdef"])) {
                    try await postgres.importContents(hers)
                }

                // Added on purpose: threads, messages and stash twice; materials, assignments and
                // sync values from the same origin or key replaced, not doubled (a material without an origin is added again).
                let again = try await postgres.importContents(contents, intoNonEmpty: true)
                #expect(again.counts == contents.counts)
                #expect(try await rows() == [6, 12, 4, 2, 6, 5, 3, 3, 4])
                #expect(try await postgres.threads(owner: .local).count == 4)
            }
        }

        @Test("a copy that fails part-way leaves the database as it was")
        func failureLeavesNothing() async throws {
            let filled = try StoreCopyTests.filled()
            let contents = try filled.store.contents()
            // The last message of the local user's first thread is followed by one that claims
            // a thread that is not copied.
            var broken = contents
            let last = try #require(contents.owners.first?.threads.first?.messages.last)
            broken.owners[0].threads[0].messages.append(
                StoredMessage(
                    id: last.id + 100, threadID: 9_999, createdAt: last.createdAt,
                    message: last.content))
            try await withTarget { postgres, database in
                await #expect(throws: StoreError.self) { try await postgres.importContents(broken) }
                for table in ["thread", "message", "message_image", "stash_item", "material", "spending"] {
                    let count = try await TestPostgres.integer("SELECT COUNT(*) FROM \(table)", on: database)
                    #expect(count == 0, "\(table)")
                }
                // And the database is usable: the good contents copy.
                let imported = try await postgres.importContents(contents)
                #expect(imported.counts.threads == 3)
            }
        }

        @Test("a recording whose file is gone keeps its path, as the SQLite store had it, and is counted")
        func missingRecording() async throws {
            let filled = try StoreCopyTests.filled()
            try FileManager.default.removeItem(at: filled.recording)
            let contents = try filled.store.contents()
            try await withTarget { postgres, _ in
                let imported = try await postgres.importContents(contents)
                #expect(imported.counts.recordings == 1 && imported.counts.missingRecordings == 1)
                let question = try #require(contents.owners.first?.threads.first?.messages.first)
                let copied = try #require(imported.messageIDs[question.id])
                #expect(try await postgres.message(copied, owner: .local)?.audioPath == question.audioPath)
                #expect(try await postgres.audio(message: copied, owner: .local) == nil)
                #expect(try filled.store.audio(message: question.id) == nil)
            }
        }

        @Test("deleting a copied recording, or its thread, in PostgreSQL leaves the SQLite store's file where it is")
        func copiedRecordingFileStays() async throws {
            let filled = try StoreCopyTests.filled()
            let contents = try filled.store.contents()
            let bytes = try Data(contentsOf: filled.recording)
            try await withTarget { postgres, _ in
                let imported = try await postgres.importContents(contents)
                let question = try #require(contents.owners.first?.threads.first?.messages.first)
                let copied = try #require(imported.messageIDs[question.id])
                try await postgres.deleteAudio(message: copied, owner: .local)
                #expect(try await postgres.message(copied, owner: .local)?.audioPath == nil)
                #expect(try await postgres.audio(message: copied, owner: .local) == nil)
                #expect(try Data(contentsOf: filled.recording) == bytes)

                // A second copy of it, deleted with its whole thread.
                let again = try await postgres.importContents(contents, intoNonEmpty: true)
                let thread = try #require(again.threadIDs[question.threadID])
                try await postgres.deleteThread(thread, owner: .local)
                #expect(try Data(contentsOf: filled.recording) == bytes)
                #expect(try filled.store.audio(message: question.id) == bytes)
            }
        }
    }
}
