import Foundation
import HTTPTypes
import ParleyCore
import ParleyPostgres
import ParleyServer
import ParleyStore
import ParleyTestServers
import ParleyTesting
import Testing

/// Several `ParleyServer` instances on one PostgreSQL database (`PARLEY_DATABASE_URL`), as
/// behind a load balancer: they share threads, each key's own, and the response cache.
@Suite("servers sharing one PostgreSQL database", .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
struct SharedDatabaseTests {
    /// Two scripted servers on a fresh database of the test server, with two keys; the database
    /// is dropped afterwards. Cancelled (skipped) without a test server.
    static func withTwoServers(
        logs: CapturedLogs? = nil, settings extra: [String: String] = [:],
        _ body: (TestServer, TestServer, DatabaseURL) async throws -> Void
    ) async throws {
        let postgres = try TestPostgres.serverOrSkip()
        let database = try await TestPostgres.createDatabase(on: postgres)
        let settings = ["PARLEY_DATABASE_URL": TestPostgres.settingValue(database), "PARLEY_API_KEYS": "key-a-secret,key-b-secret"]
            .merging(extra) { $1 }
        do {
            let first = try await TestServer.scripted(
                model: ScriptedLanguageModel(name: "first", replies: [["Paris."], ["Still Paris."]]),
                settings: settings, logger: logs?.logger(label: "first"))
            defer { first.stop() }
            let second = try await TestServer.scripted(model: ScriptedLanguageModel(name: "second", replies: [["Rome."]]), settings: settings)
            defer { second.stop() }
            try await body(first, second, database)
        } catch {
            try? await TestPostgres.dropDatabase(database, on: postgres)
            throw error
        }
        try await TestPostgres.dropDatabase(database, on: postgres)
    }

    @Test("two instances enforce one limit per key: the second sees what the first spent; a response's thread is claimed once")
    func sharedLimits() async throws {
        try await Self.withTwoServers(settings: ["PARLEY_RATE_LIMIT_RPM": "3"]) { first, second, database in
            let question = ["messages": [["role": "user", "content": "Capital of France?"]]]
            for _ in 1...3 {
                #expect(try await Client(server: first, key: "key-a-secret").send(.POST, "/v1/chat/completions", question).status == 200)
            }
            // The instances exchange what they spent a few times a second; a loaded machine (the
            // whole suite in parallel) may take longer, so the second is asked up to three times.
            // Its own requests before a refusal (at most two) stay under the limit of three: a
            // refusal shows it counted what the first spent.
            var refused = try await Client(server: second, key: "key-a-secret").send(.POST, "/v1/chat/completions", question)
            for wait in [1.5, 4] where refused.status != 429 {
                try await Task.sleep(for: .seconds(wait))
                refused = try await Client(server: second, key: "key-a-secret").send(.POST, "/v1/chat/completions", question)
            }
            #expect(refused.status == 429, "\(refused.text)")
            #expect(try await Client(server: second, key: "key-b-secret").send(.POST, "/v1/chat/completions", question).status == 200)

            // What the Responses API claims a thread with: one instance at a time.
            let one = try await PostgresConversationStore.open(database)
            let other = try await PostgresConversationStore.open(database)
            #expect(try await one.claimThread(4_242, stale: .seconds(600)))
            #expect(try await other.claimThread(4_242, stale: .seconds(600)) == false)
            #expect(try await other.claimThread(4_242, stale: .zero), "a claim older than the staleness is taken over")
            try await other.releaseThread(4_242)
            #expect(try await one.claimThread(4_242, stale: .seconds(600)))
            await one.close()
            await other.close()
        }
    }

    @Test("a thread created through one instance is listed and continued through the other, by the same key only")
    func sharedThreads() async throws {
        let logs = CapturedLogs()
        try await Self.withTwoServers(logs: logs) { first, second, database in
            let aliceOnFirst = Client(server: first, key: "key-a-secret")
            let aliceOnSecond = Client(server: second, key: "key-a-secret")
            let bobOnSecond = Client(server: second, key: "key-b-secret")

            let created = try await aliceOnFirst.json(.POST, "/v1/threads", ["title": "Trip"], status: 201)
            let id = try #require(created["id"] as? Int)
            _ = try await aliceOnFirst.json(.POST, "/v1/threads/\(id)/messages", ["role": "user", "text": "Where first?"], status: 201)

            let listed = try #require(try await aliceOnSecond.json(.GET, "/v1/threads")["data"] as? [[String: Any]])
            #expect(listed.map { ($0["thread"] as? [String: Any])?["id"] as? Int } == [id])
            #expect(listed.first?["last_message_preview"] as? String == "Where first?")
            let continued = try await aliceOnSecond.json(.POST, "/v1/threads/\(id)/messages", ["role": "assistant", "text": "Lyon."], status: 201)
            let mid = try #require(continued["id"] as? Int)
            _ = try await aliceOnFirst.json(.PATCH, "/v1/threads/\(id)/messages/\(mid)", ["edited_text": "Lyon, then Paris."])
            let thread = try await aliceOnSecond.json(.GET, "/v1/threads/\(id)")
            #expect((thread["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Where first?", "Lyon."])
            #expect((thread["messages"] as? [[String: Any]])?.last?["edited_text"] as? String == "Lyon, then Paris.")

            // Another key sees none of it, on either instance.
            #expect((try await bobOnSecond.json(.GET, "/v1/threads")["data"] as? [Any])?.isEmpty == true)
            expectOpenAIError(try await bobOnSecond.send(.GET, "/v1/threads/\(id)", nil), status: 404, code: "thread_not_found")
            expectOpenAIError(
                try await Client(server: first, key: "key-b-secret").send(
                    .POST, "/v1/threads/\(id)/messages",
                    ["role": "user", "text": "hi"]), status: 404)

            // Deleted through the first, gone from the second.
            _ = try await aliceOnFirst.json(.DELETE, "/v1/threads/\(id)")
            expectOpenAIError(try await aliceOnSecond.send(.GET, "/v1/threads/\(id)", nil), status: 404, code: "thread_not_found")

            // The instances said where the conversations are, and never the password.
            let password = try #require(database.password)
            let logged = logs.records.map(\.message)
            #expect(logged.contains { $0.contains("conversations are kept in \(database)") })
            #expect(!logged.contains { $0.contains(password) })
        }
    }

    @Test("a realtime conversation saved through one instance is continued by voice through the other")
    func realtimeContinues() async throws {
        try await Self.withTwoServers { first, second, _ in
            let key: HTTPFields = [.authorization: "Bearer key-a-secret"]
            let question = try WAV.decode(try Samples.question())
            try await RealtimeTestClient.with(first, headers: key) { client in
                try await client.next("session.created")
                try await client.append(question.followed(bySilence: 1.5))
                try await client.next("response.done")
            }
            let alice = Client(server: second, key: "key-a-secret")
            var threads: [[String: Any]] = []
            // The reply is saved just after its response.done.
            for _ in 0..<50 {
                threads = try #require(try await alice.json(.GET, "/v1/threads")["data"] as? [[String: Any]])
                if threads.first?["message_count"] as? Int == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let id = try #require((threads.first?["thread"] as? [String: Any])?["id"] as? Int)
            #expect(threads.first?["message_count"] as? Int == 2)

            try await RealtimeTestClient.with(second, query: "thread=\(id)", headers: key) { client in
                try await client.next("session.created")
                try await client.append(question.followed(bySilence: 1.5))
                try await client.next("response.done")
            }
            var messages: [[String: Any]] = []
            for _ in 0..<50 {
                messages = try #require(
                    try await Client(server: first, key: "key-a-secret").json(.GET, "/v1/threads/\(id)")["messages"]
                        as? [[String: Any]])
                if messages.count == 4 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user", "assistant"])
            #expect(messages.map { $0["provider"] as? String }.last == "second")
        }
    }

    @Test("the response cache is shared: an answer one instance got is the other's hit")
    func sharedCache() async throws {
        try await Self.withTwoServers { first, second, _ in
            let request: [String: Any] = ["model": "auto", "temperature": 0, "messages": [["role": "user", "content": "Capital of France?"]]]
            let headers = [("authorization", "Bearer key-a-secret")]
            let miss = try await first.post("/v1/chat/completions", json: request, headers: headers)
            #expect(miss.headers["x-parley-cache"] == "miss")
            let hit = try await second.post("/v1/chat/completions", json: request, headers: headers)
            #expect(hit.headers["x-parley-cache"] == "hit")
            #expect(hit.headers["x-parley-provider"] == "first")
            let choices = try #require(hit.json?["choices"] as? [[String: Any]])
            #expect((choices.first?["message"] as? [String: Any])?["content"] as? String == "Paris.")
            // Another key does not share the first key's answers.
            let other = try await second.post("/v1/chat/completions", json: request, headers: [("authorization", "Bearer key-b-secret")])
            #expect(other.headers["x-parley-cache"] == "miss")
            #expect((try #require(other.json?["choices"] as? [[String: Any]]).first?["message"] as? [String: Any])?["content"] as? String == "Rome.")
        }
    }

    @Test("a server whose database cannot be reached does not start, and says so without the password")
    func unreachable() async throws {
        let settings = ["PARLEY_DATABASE_URL": "postgres://parley:n0t-this-pw@127.0.0.1:9/parley?sslmode=disable"]
        let error = await #expect(throws: StoreError.self) { _ = try await TestServer.scripted(settings: settings) }
        #expect(error?.description.contains("postgresql://parley@127.0.0.1:9/parley") == true)
        #expect(error?.description.contains("n0t-this-pw") == false)
    }

    @Test("a PARLEY_DATABASE_URL that is not a PostgreSQL URL is refused before the server starts")
    func invalidURL() async throws {
        let error = await #expect(throws: ServerConfiguration.Invalid.self) {
            _ = try await TestServer.scripted(settings: ["PARLEY_DATABASE_URL": "mysql://root:hunter2@db/parley"])
        }
        #expect(error?.description.contains("PARLEY_DATABASE_URL") == true)
        #expect(error?.description.contains("hunter2") == false)
    }
}

extension TestPostgres {
    /// The test server's URL. Without one, the current test case is cancelled (reported as
    /// skipped, with what to run), or fails when scripts/test said PostgreSQL must be there.
    static func serverOrSkip() throws -> DatabaseURL {
        if let server = try serverURL() { return server }
        if isRequired() { throw Unavailable() }
        try Test.cancel(Comment(rawValue: unavailable))
    }
}
