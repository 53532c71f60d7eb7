import Foundation
import GRDB
import ParleyCore
@testable import ParleyPostgres
import ParleyTestServers
import Testing
@testable import ParleyStore

/// Tool exchanges in saved conversations: an assistant's calls and the tools' results are kept
/// by both stores (the `tool` column), read back as they were appended, given back to the model
/// by ``ThreadJournal/history(of:in:owner:)``, exported, and copied into PostgreSQL.
@Suite("Tool calls and results in conversations (SQLite and PostgreSQL)")
struct ToolMessageTests {
    static let question = NewMessage(role: .user, text: "Weather in Lyon and Oslo?", typedText: "Weather in Lyon and Oslo?")
    static let lyon = ToolCall(id: "call_lyon", name: "weather", arguments: #"{"city": "Lyon", "units": "metric"}"#)
    static let oslo = ToolCall(id: "call_oslo", name: "weather", arguments: #"{"city":"Oslo"}"#)
    /// Calls with no text, as models usually send them.
    static let calls = NewMessage(
        role: .assistant, text: "", provider: "openai", usage: Usage(inputTokens: 80, outputTokens: 30),
        toolCalls: [lyon, oslo])
    static let lyonResult = NewMessage(role: .tool, text: #"{"temp_c":21,"sky":"clear"}"#, toolCallID: "call_lyon", toolName: "weather")
    static let osloResult = NewMessage(
        role: .tool, text: "the weather service did not answer within 5 s", toolCallID: "call_oslo",
        toolName: "weather", isToolError: true)
    static let answer = NewMessage(role: .assistant, text: "Lyon is clear at 21 °C; Oslo's weather could not be read.", provider: "openai")
    static let exchange = [question, calls, lyonResult, osloResult, answer]

    /// The exchange as the model sees it again.
    static let expectedHistory: [ChatMessage] = [
        .user("Weather in Lyon and Oslo?"),
        .assistant(toolCalls: [lyon, oslo]),
        .tool(callID: "call_lyon", name: "weather", content: #"{"temp_c":21,"sky":"clear"}"#),
        .tool(callID: "call_oslo", name: "weather", content: "the weather service did not answer within 5 s", isError: true),
        .assistant("Lyon is clear at 21 °C; Oslo's weather could not be read."),
    ]

    @Test(
        "calls and results (one an error) read back exactly, by another store on the same database, and in the export",
        arguments: StoreBackend.available)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: "Weather", settings: ThreadSettings(), owner: .local)
            var saved: [StoredMessage] = []
            for message in Self.exchange {
                saved.append(try await store.append(message, to: thread.id, owner: .local))
                tested.clock.advance(seconds: 1)
            }
            #expect(saved.map(\.content) == Self.exchange)

            let reopened = try await tested.reopen()
            let read = try await reopened.messages(in: thread.id, owner: .local)
            #expect(read == saved)
            #expect(read.map(\.role) == [.user, .assistant, .tool, .tool, .assistant])
            #expect(read[1].toolCalls == [Self.lyon, Self.oslo] && read[1].text.isEmpty)
            #expect(read[1].toolCalls.first?.arguments == #"{"city": "Lyon", "units": "metric"}"#, "the arguments' text is kept as written")
            #expect(read[3].toolCallID == "call_oslo" && read[3].toolName == "weather" && read[3].isToolError)
            #expect(read[2].isToolError == false && read[4].toolCalls.isEmpty && read[4].toolCallID == nil)
            #expect(try await reopened.message(saved[3].id, owner: .local) == saved[3])

            let exported = try await reopened.exported(thread: thread.id, owner: .local)
            #expect(exported.threads.first?.messages == saved)
            let decoded = try ConversationExport.decode(try exported.jsonData())
            #expect(decoded == exported)
        }
    }

    @Test(
        "history gives the model the exchange in order: the calls without text, each result, then the answer",
        arguments: StoreBackend.available)
    func history(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let journal = ThreadJournal(store: tested.store, thread: nil, settings: ThreadSettings())
            try await journal.record(NewMessage(role: .system, text: "Be brief."))
            for message in Self.exchange { try await journal.record(message) }
            let thread = try #require(await journal.thread)
            #expect(try await ThreadJournal.history(of: thread, in: tested.reopen()) == Self.expectedHistory)
        }
    }

    @Test(
        "history leaves out a call whose result was never saved, and a result that answers no saved call",
        arguments: StoreBackend.available)
    func unansweredCalls(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let cut = NewMessage(role: .assistant, text: "Let me look.", toolCalls: [Self.lyon, Self.oslo])
            let stray = NewMessage(role: .tool, text: "orphan", toolCallID: "call_gone", toolName: "weather")
            for message in [Self.question, cut, Self.lyonResult, stray, NewMessage(role: .assistant, text: "", toolCalls: [Self.oslo])] {
                try await store.append(message, to: thread.id, owner: .local)
            }
            #expect(
                try await ThreadJournal.history(of: thread.id, in: store) == [
                    .user("Weather in Lyon and Oslo?"),
                    .assistant("Let me look.", toolCalls: [Self.lyon]),
                    .tool(callID: "call_lyon", name: "weather", content: #"{"temp_c":21,"sky":"clear"}"#),
                ])
        }
    }

    @Test("the conversation list previews the last words, not a tool's result or calls without text", arguments: StoreBackend.available)
    func preview(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            for message in Self.exchange.prefix(4) { try await store.append(message, to: thread.id, owner: .local) }
            let summary = try #require(try await store.threads(owner: .local).first)
            #expect(summary.messageCount == 4)
            #expect(summary.lastMessagePreview == "Weather in Lyon and Oslo?")
            #expect(try await store.exported(thread: thread.id, owner: .local).threads.first?.preview == "Weather in Lyon and Oslo?")
        }
    }

    @Test("the JSON of a message carries the tool fields only when it has them, with snake_case keys")
    func json() throws {
        func object(_ message: NewMessage) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(message)) as? [String: Any])
        }
        let calls = try object(Self.calls)
        let encodedCalls = try #require(calls["tool_calls"] as? [[String: Any]])
        #expect(encodedCalls.map { $0["name"] as? String } == ["weather", "weather"])
        #expect(encodedCalls.first?["id"] as? String == "call_lyon")
        #expect(encodedCalls.first?["arguments"] as? String == #"{"city": "Lyon", "units": "metric"}"#)
        #expect(calls["tool_call_id"] == nil && calls["is_tool_error"] == nil)
        let failed = try object(Self.osloResult)
        #expect(failed["tool_call_id"] as? String == "call_oslo" && failed["tool_name"] as? String == "weather")
        #expect(failed["is_tool_error"] as? Bool == true && failed["tool_calls"] == nil)
        #expect(try object(Self.lyonResult)["is_tool_error"] == nil)
        let plain = try object(Self.answer)
        #expect(Set(plain.keys).isDisjoint(with: ["tool_calls", "tool_call_id", "tool_name", "is_tool_error"]))
        for message in Self.exchange {
            #expect(try JSONDecoder().decode(NewMessage.self, from: JSONEncoder().encode(message)) == message)
        }
    }

    @Test("the tool column holds the documented JSON, and NULL for a message without tools")
    func sqliteColumn() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        for message in Self.exchange { try fixture.store.append(message, to: thread.id) }
        let columns = try fixture.store.pool.read { db in
            try String?.fetchAll(db, sql: "SELECT tool FROM message ORDER BY id")
        }
        #expect(
            columns == [
                nil,
                #"{"calls":[{"arguments":"{\"city\": \"Lyon\", \"units\": \"metric\"}","id":"call_lyon","name":"weather"},"#
                    + #"{"arguments":"{\"city\":\"Oslo\"}","id":"call_oslo","name":"weather"}]}"#,
                #"{"call_id":"call_lyon","name":"weather"}"#,
                #"{"call_id":"call_oslo","is_error":true,"name":"weather"}"#,
                nil,
            ])
    }

    @Test("a SQLite database from before tools opens, gains the tool column, reads its rows without tool data and takes an exchange")
    func sqliteMigratesFromV7() throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.appendingPathComponent("old.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v7-synced-materials-assignments-sync-state")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (id, title, created_at, updated_at, backend, system_prompt, max_tokens)
                    VALUES (1, 'old', '2025-01-01 10:00:00.000', '2025-01-01 10:00:00.000', 'local', 'Be brief.', 64);
                    INSERT INTO message (thread_id, created_at, role, text, typed_text, image_references, timings_ms)
                    VALUES (1, '2025-01-01 10:00:00.000', 'user', 'hello', 'hello', '[]', '{}'),
                           (1, '2025-01-01 10:00:01.000', 'assistant', 'hi', NULL, '[]', '{"llm":40}');
                    """)
        }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try store.diagnostics().appliedMigrations.suffix(3) == ["v8-tool-calls", "v9-material-search", "v10-material-vectors"])
        let kept = try store.messages(in: 1)
        #expect(
            kept.map(\.content) == [
                NewMessage(role: .user, text: "hello", typedText: "hello"),
                NewMessage(role: .assistant, text: "hi", timingsMs: ["llm": 40]),
            ])
        #expect(kept.allSatisfy { $0.toolCalls.isEmpty && $0.toolCallID == nil && $0.toolName == nil && !$0.isToolError })
        for message in Self.exchange { try store.append(message, to: 1) }
        #expect(try store.messages(in: 1).map(\.content) == kept.map(\.content) + Self.exchange)
    }
}

/// What only the PostgreSQL store does with tools: its migration, and `parley store copy`.
extension ToolMessageTests {
    @Suite("in PostgreSQL", .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
    struct InPostgres {
        @Test("a database at v4 is migrated: its messages read back without tool data, and new ones keep theirs")
        func migratesFromV4() async throws {
            let server = try TestPostgres.serverOrSkip()
            let database = try await TestPostgres.createDatabase(on: server)
            do {
                let old = PostgresSchema.migrations.prefix { $0.name != "v5-tool-calls" }
                #expect(old.map(\.name).last == "v4-copied-recordings" && old.count == PostgresSchema.migrations.count - 4)
                try await TestPostgres.run(
                    "CREATE TABLE parley_schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())", on: database)
                for migration in old {
                    for statement in migration.statements { try await TestPostgres.run(statement, on: database) }
                    try await TestPostgres.run("INSERT INTO parley_schema_migrations (name) VALUES ('\(migration.name)')", on: database)
                }
                try await TestPostgres.run(
                    """
                    INSERT INTO thread (owner, title, created_at, updated_at, backend, system_prompt, max_tokens)
                    VALUES ('', 'old', now(), now(), 'local', 'Be brief.', 64)
                    """, on: database)
                try await TestPostgres.run(
                    """
                    INSERT INTO message (thread_id, created_at, role, text, typed_text)
                    SELECT id, now(), 'user', 'hello', 'hello' FROM thread
                    """, on: database)

                let store = try await PostgresConversationStore.open(database)
                #expect(try await TestPostgres.integer("SELECT COUNT(*) FROM parley_schema_migrations", on: database) == PostgresSchemaCount.migrations)
                let thread = try #require(try await store.threads(owner: .local).first?.thread.id)
                let kept = try await store.messages(in: thread, owner: .local)
                #expect(kept.map(\.content) == [NewMessage(role: .user, text: "hello", typedText: "hello")])
                for message in ToolMessageTests.exchange.dropFirst() { try await store.append(message, to: thread, owner: .local) }
                #expect(
                    try await store.messages(in: thread, owner: .local).map(\.content)
                        == kept.map(\.content) + ToolMessageTests.exchange.dropFirst())
                await store.close()
            } catch {
                try? await TestPostgres.dropDatabase(database, on: server)
                throw error
            }
            try await TestPostgres.dropDatabase(database, on: server)
        }
    }
}

extension StoreCopyTests.IntoPostgres {
    @Test("a tool exchange arrives with its calls, results and errors, and gives the same history")
    func copiesToolExchange() async throws {
        let fixture = try StoreFixture()
        let sqlite = fixture.store
        let thread = try sqlite.createThread(title: "Weather", settings: ThreadSettings())
        for message in ToolMessageTests.exchange {
            try sqlite.append(message, to: thread.id)
            fixture.clock.advance(seconds: 1)
        }
        let contents = try sqlite.contents()
        try await withTarget { postgres, _ in
            let imported = try await postgres.importContents(contents)
            #expect(imported.counts.messages == ToolMessageTests.exchange.count)
            let copied = try #require(imported.threadIDs[thread.id])
            let expected = try sqlite.exported(thread: thread.id).threads.map { try renumbered($0, imported) }
            #expect(try await postgres.exported(thread: copied, owner: .local).threads == expected)
            #expect(try await postgres.messages(in: copied, owner: .local).map(\.content) == ToolMessageTests.exchange)
            #expect(try await ThreadJournal.history(of: copied, in: postgres) == ToolMessageTests.expectedHistory)
        }
    }
}
