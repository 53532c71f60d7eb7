import Foundation
import ParleyCore
import ParleyStore
import ParleyTestServers
import Testing

/// `parley store copy`: a SQLite database into PostgreSQL, as a user runs it.
@Suite("parley store copy")
struct StoreCopyCLITests {
    /// What `--json` prints.
    struct CopyDocument: Decodable {
        struct Counts: Decodable, Equatable {
            var owners, threads, messages, images, recordings, materials, assignments: Int
            var missing_recordings, stash_items, sync_values, spending_charges: Int
        }
        var from: String
        var to: String
        var copied: Counts
    }

    /// A folder of its own for the run (its data directory too, so no settings file of the
    /// machine is read), removed afterwards.
    func withFolder(_ body: (URL, [String: String]) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-copy-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder, ["PARLEY_HOME": folder.path, "PARLEY_DATABASE_URL": "", "PARLEY_DATABASE": ""])
    }

    /// One sentence on stderr and the exit status.
    func expectFailure(_ result: CLI.Result, status: Int32 = 1, mentioning phrases: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "status \(result.status), stderr: \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n").filter { $0.lowercased().hasPrefix("error:") }
        #expect(lines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(result.stderr.contains(phrase), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test("a URL that is not PostgreSQL's is one sentence saying how to write it")
    func badURL() async throws {
        try await withFolder { folder, environment in
            let result = try await CLI.run(
                [
                    "store", "copy", "--from", folder.appendingPathComponent("none.sqlite").path,
                    "--to", "mysql://parley:hunter2@db.internal/parley",
                ], environment: environment)
            expectFailure(
                result, status: 64,
                mentioning: [
                    "--to cannot be used (only postgres:// and postgresql:// URLs are supported): write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE."
                ])
            #expect(!result.stderr.contains("hunter2"))
        }
    }

    @Test("no database to copy, or nowhere to copy it, is one sentence; nothing is created")
    func missingEnds() async throws {
        try await withFolder { folder, environment in
            let absent = folder.appendingPathComponent("absent.sqlite")
            let noSource = try await CLI.run(
                ["store", "copy", "--from", absent.path, "--to", "postgres://parley@127.0.0.1:1/parley"],
                environment: environment)
            expectFailure(noSource, mentioning: ["there is no conversation database at \(absent.path): pass --from"])
            #expect(!FileManager.default.fileExists(atPath: absent.path))

            let noTarget = try await CLI.run(["store", "copy", "--from", absent.path], environment: environment)
            expectFailure(noTarget, mentioning: ["pass --to postgres://USER:PASSWORD@HOST:PORT/DATABASE or set PARLEY_DATABASE_URL"])
        }
    }

    @Test("a server that is not there is named as --to gave it, without the password")
    func unreachable() async throws {
        try await withFolder { folder, environment in
            let database = folder.appendingPathComponent("parley.sqlite")
            _ = try ConversationStore(path: database).createThread(title: "kept", settings: ThreadSettings())
            let port = RefusingPort.find()
            let result = try await CLI.run(
                [
                    "store", "copy", "--from", database.path,
                    "--to", "postgres://parley:hunter2@127.0.0.1:\(port)/parley?sslmode=disable",
                ],
                environment: environment)
            expectFailure(
                result,
                mentioning: [
                    "cannot use the PostgreSQL database at postgresql://parley@127.0.0.1:\(port)/parley",
                    "--to names the right user, password and database",
                ])
            #expect(!result.stderr.contains("hunter2"))
        }
    }
}

extension StoreCopyCLITests {
    @Suite("into a real PostgreSQL", .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
    struct IntoPostgres {
        @Test("copies two owners' data, reports the counts, and refuses a second copy without changing anything")
        func copyThenRefuse() async throws {
            guard let server = try TestPostgres.serverURL() else {
                if TestPostgres.isRequired() { throw TestPostgres.Unavailable() }
                try Test.cancel(Comment(rawValue: TestPostgres.unavailable))
            }
            let target = try await TestPostgres.createDatabase(on: server)
            do {
                try await StoreCopyCLITests().withFolder { folder, environment in
                    try await copyThenRefuse(folder: folder, environment: environment, target: target)
                }
            } catch {
                try? await TestPostgres.dropDatabase(target, on: server)
                throw error
            }
            try await TestPostgres.dropDatabase(target, on: server)
        }

        private func copyThenRefuse(folder: URL, environment: [String: String], target: DatabaseURL) async throws {
            let database = folder.appendingPathComponent("parley.sqlite")
            let store = try ConversationStore(path: database)
            let thread = try store.createThread(title: "Trip", settings: ThreadSettings())
            let question = try store.append(
                ConversationMessage(
                    role: .user, text: "capitol of france?", rawTranscript: "capitol of france?",
                    images: [ImageAttachment(data: Data([1, 2, 3]), mimeType: "image/png")]),
                to: thread.id)
            try store.editTranscript(message: question.id, text: "capital of France?")
            try store.append(ConversationMessage(role: .assistant, text: "Paris."), to: thread.id)
            try store.stash(NewStashItem(kind: "transcript", text: "capital of France?", messageID: question.id))
            try store.saveAssignment(NewAssignment(origin: "calendar:main/e1", source: "calendar", title: "Essay", dueDay: "2026-12-01"))
            let key = Owner.key("key-00000000000000aa")
            let hers = try store.createThread(title: "Hers", settings: ThreadSettings(), owner: key)
            try store.append(ConversationMessage(role: .user, text: "hola"), to: hers.id, owner: key)
            try store.setSyncState("google.drive.page-token", to: "7", owner: key)
            try store.record(cost: 0.1, provider: "openai", at: Date())

            let url = TestPostgres.settingValue(target)
            let copy = try await CLI.run(["store", "copy", "--from", database.path, "--to", url, "--json"], environment: environment)
            #expect(copy.status == 0, "stderr: \(copy.stderr)")
            let document = try JSONDecoder().decode(CopyDocument.self, from: Data(copy.stdout.utf8))
            #expect(document.from == database.path && document.to == target.description)
            #expect(
                document.copied
                    == CopyDocument.Counts(
                        owners: 2, threads: 2, messages: 3, images: 1, recordings: 0, materials: 0,
                        assignments: 1, missing_recordings: 0, stash_items: 1, sync_values: 1,
                        spending_charges: 1))
            #expect(!copy.stdout.contains(target.password ?? "\u{0}"))

            // The copy as the server will read it: the edited transcript, the stash pointing at the copied message.
            let edited = try await TestPostgres.integer(
                """
                SELECT COUNT(*) FROM message JOIN thread ON thread.id = message.thread_id
                WHERE thread.owner = '' AND message.raw_transcript = 'capitol of france?' AND message.edited_text = 'capital of France?'
                """, on: target)
            #expect(edited == 1)
            let pointed = try await TestPostgres.integer(
                """
                SELECT COUNT(*) FROM stash_item JOIN message ON message.id = stash_item.message_id
                WHERE stash_item.thread_id = message.thread_id AND message.text = 'capitol of france?'
                """, on: target)
            #expect(pointed == 1)

            // The table form, on the environment's setting this time: refused, nothing added.
            var settings = environment
            settings["PARLEY_DATABASE_URL"] = url
            let again = try await CLI.run(["store", "copy", "--from", database.path], environment: settings)
            #expect(again.status == 1)
            #expect(
                again.stderr.contains("already holds conversations or other data of local, key-00000000000000aa, the spending ledger"),
                "stderr: \(again.stderr)")
            #expect(again.stderr.contains("pass --into-nonempty"))
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM thread", on: target) == 2)
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM message", on: target) == 3)

            let added = try await CLI.run(["store", "copy", "--from", database.path, "--into-nonempty"], environment: settings)
            #expect(added.status == 0, "stderr: \(added.stderr)")
            #expect(added.stdout.contains("Copied \(database.path) into \(target.description):"))
            #expect(added.stdout.contains("  threads          2\n"))
            #expect(added.stdout.contains("The response cache was not copied"))
            #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM thread", on: target) == 4)
        }
    }
}
