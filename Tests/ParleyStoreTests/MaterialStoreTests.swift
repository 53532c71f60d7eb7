import Foundation
import GRDB
@testable import ParleyPostgres
import ParleyTestServers
import Testing
@testable import ParleyStore

@Suite("Study materials (SQLite and PostgreSQL)")
struct MaterialStoreTests {
    static let biology = NewMaterial(
        title: "Biology", kind: "pdf", source: "/tmp/biology.pdf",
        text: "Photosynthesis\n\nRespiration", pageCount: 2, readBy: "pdftotext+tesseract")

    @Test("materials are added whole, listed newest first, shown and removed", arguments: StoreBackend.available)
    func addListShowRemove(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let first = try await store.addMaterial(Self.biology, owner: .local)
            tested.clock.advance(seconds: 1)
            let second = try await store.addMaterial(
                NewMaterial(title: "Notes", kind: "markdown", source: "n.md", text: "# Notes", pageCount: 1, readBy: "file"), owner: .local)
            #expect(first.title == "Biology" && first.kind == "pdf" && first.pageCount == 2 && first.readBy == "pdftotext+tesseract")
            #expect(first.text == "Photosynthesis\n\nRespiration" && first.source == "/tmp/biology.pdf")
            #expect(first.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.materials(owner: .local) == [second, first])
            #expect(try await store.material(first.id, owner: .local) == first)

            try await store.deleteMaterial(first.id, owner: .local)
            #expect(try await store.materials(owner: .local) == [second])
            #expect(try await store.material(first.id, owner: .local) == nil)
            await #expect(throws: StoreError.materialNotFound(first.id)) { try await store.deleteMaterial(first.id, owner: .local) }
        }
    }

    @Test("each owner sees only their own materials", arguments: StoreBackend.available)
    func owners(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let ana = Owner.key("ana")
            let hers = try await store.addMaterial(Self.biology, owner: ana)
            #expect(try await store.materials(owner: .local).isEmpty)
            #expect(try await store.material(hers.id, owner: .local) == nil)
            await #expect(throws: StoreError.materialNotFound(hers.id)) { try await store.deleteMaterial(hers.id, owner: .local) }
            #expect(try await store.materials(owner: ana) == [hers])
        }
    }

    // MARK: Search

    static func note(_ title: String, _ text: String, origin: String? = nil) -> NewMaterial {
        NewMaterial(title: title, kind: "text", source: "\(title).txt", text: text, pageCount: 1, readBy: "file", origin: origin)
    }

    static let trip = note("Field trip", "The class field trip to the science museum is on Friday.\n\nBring a packed lunch and the signed permission slip.")
    static let swimming = note("Sports", "Swimming lessons start in May at the town pool. Bring goggles.")
    static let algebra = note("Algebra", "Solve each equation for x and show your working. Check the answer by substitution.")

    /// Adds the three notes for `owner`, in the order trip, swimming, algebra.
    static func addNotes(to store: any ConversationStoring, owner: Owner = .local) async throws -> [Material] {
        var added: [Material] = []
        for material in [trip, swimming, algebra] { added.append(try await store.addMaterial(material, owner: owner)) }
        return added
    }

    @Test("a spoken question finds the relevant material first, by the stems of its words", arguments: StoreBackend.available)
    func searchRanks(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let notes = try await Self.addNotes(to: store)

            let trips = try await store.searchMaterials("What do my notes say about the trips?", limit: 3, owner: .local)
            #expect(trips.first?.material == notes[0].id)
            #expect(trips.first?.title == "Field trip")
            #expect(trips.map(\.material) == [notes[0].id], "only the field trip mentions a trip")
            // "swim" is the stem of "Swimming": a plain word match would miss it.
            let swim = try await store.searchMaterials("When do we swim?", limit: 3, owner: .local)
            #expect(swim.map(\.material) == [notes[1].id])
            #expect(swim.first?.snippet.contains("Swimming lessons start in May") == true)
            // Any one word is enough; the material with more of them, and rarer ones, comes first.
            let bring = try await store.searchMaterials("bring goggles", limit: 3, owner: .local)
            #expect(bring.map(\.material) == [notes[1].id, notes[0].id])
            #expect(bring[0].score > bring[1].score)
            #expect(try await store.searchMaterials("bring goggles", limit: 1, owner: .local).map(\.material) == [notes[1].id])
            #expect(try await store.searchMaterials("bring", limit: 0, owner: .local).isEmpty)
            #expect(try await store.searchMaterials("quantum chromodynamics", limit: 3, owner: .local).isEmpty)
            #expect(try await store.searchMaterials("what is it about?", limit: 3, owner: .local).isEmpty, "only function words")
        }
    }

    @Test("a word in a material's title counts more than the same word in another's text", arguments: StoreBackend.available)
    func searchWeighsTitles(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            // The text that names it is short, so it would rank first if a title counted no more.
            let inText = try await store.addMaterial(Self.note("Geography", "Volcano: a mountain of lava."), owner: .local)
            let inTitle = try await store.addMaterial(
                Self.note("Volcanoes", "Mountains where hot lava comes out of the ground, and the eruptions that follow."), owner: .local)
            let hits = try await store.searchMaterials("volcano", limit: 3, owner: .local)
            #expect(hits.map(\.material) == [inTitle.id, inText.id])
            #expect(hits[0].title == "Volcanoes")
        }
    }

    @Test("another owner's materials are never found", arguments: StoreBackend.available)
    func searchOwners(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let ana = Owner.key("ana")
            let bob = Owner.key("bob")
            let hers = try await Self.addNotes(to: store, owner: ana)
            #expect(try await store.searchMaterials("field trip", limit: 5, owner: .local).isEmpty)
            #expect(try await store.searchMaterials("field trip", limit: 5, owner: bob).isEmpty)
            let mine = try await store.addMaterial(Self.note("My trip", "A trip to the coast."), owner: .local)
            #expect(try await store.searchMaterials("field trip", limit: 5, owner: .local).map(\.material) == [mine.id])
            #expect(try await store.searchMaterials("field trip", limit: 5, owner: ana).map(\.material) == [hers[0].id])
            #expect(try await store.searchMaterials("coast", limit: 5, owner: ana).isEmpty)
        }
    }

    @Test("search follows deletes, and a synced material replaced from its origin", arguments: StoreBackend.available)
    func searchFollowsChanges(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let notes = try await Self.addNotes(to: store)
            try await store.deleteMaterial(notes[0].id, owner: .local)
            #expect(try await store.searchMaterials("trip museum", limit: 3, owner: .local).isEmpty)

            let synced = try await store.saveMaterial(Self.note("Earth science", "Volcanoes erupt lava.", origin: "drive:geo"), owner: .local)
            #expect(try await store.searchMaterials("volcano", limit: 3, owner: .local).map(\.material) == [synced.id])
            let replaced = try await store.saveMaterial(Self.note("Ice ages", "Glaciers carved the valleys.", origin: "drive:geo"), owner: .local)
            #expect(replaced.id == synced.id)
            #expect(try await store.searchMaterials("volcano", limit: 3, owner: .local).isEmpty)
            #expect(try await store.searchMaterials("earth science", limit: 3, owner: .local).isEmpty, "the old title is gone too")
            let glaciers = try await store.searchMaterials("glacier", limit: 3, owner: .local)
            #expect(glaciers.map(\.material) == [synced.id])
            #expect(glaciers.first?.title == "Ice ages" && glaciers.first?.snippet == "Glaciers carved the valleys.")

            #expect(try await store.deleteMaterial(origin: "drive:geo", owner: .local))
            #expect(try await store.searchMaterials("glacier", limit: 3, owner: .local).isEmpty)
            #expect(try await store.searchMaterials("swimming", limit: 3, owner: .local).map(\.material) == [notes[1].id])
        }
    }

    /// Queries that hold FTS5's or `tsquery`'s syntax, or nothing searchable.
    static let hostileQueries = [
        "", "   ", "\"", "\"\"", "*", "NEAR(", "-", "OR", "AND", "NOT", "?!.,;:", "'", "\\", "()", "^", "{}", "&|!<->:*",
        "\"trip", "trip\" OR", "trip*", "-trip", "^trip", "title:trip", "NEAR(trip museum)", "trip AND NOT museum",
        "(trip OR", "trip & | ! <-> museum:*", "'trip' | 'museum'", "ª ½ ²", "\u{0301}", "🙂 trip 🙂",
    ]

    @Test("a query holding search syntax, or only punctuation, finds nothing or real hits, and never fails", arguments: StoreBackend.available)
    func searchHostileQueries(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let notes = try await Self.addNotes(to: store)
            for query in Self.hostileQueries {
                let hits = try await store.searchMaterials(query, limit: 3, owner: .local)
                #expect(hits.allSatisfy { hit in notes.contains { $0.id == hit.material } }, "query \(query)")
                let searchable = query.lowercased().contains("trip")
                #expect(hits.map(\.material) == (searchable ? [notes[0].id] : []), "query \(query)")
            }
        }
    }

    @Test("a snippet is the passage around the match, without marks, at most snippetLimit characters", arguments: StoreBackend.available)
    func searchSnippets(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let filler = Array(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit.", count: 30).joined(separator: " ")
            let text = filler + "\n\nThe eruption of Vesuvius buried Pompeii under ash in the year 79.\n\n" + filler
            let history = try await store.addMaterial(Self.note("Roman history", text), owner: .local)
            let hits = try await store.searchMaterials("When was Pompeii buried?", limit: 3, owner: .local)
            #expect(hits.map(\.material) == [history.id])
            let snippet = try #require(hits.first?.snippet)
            #expect(snippet.contains("buried Pompeii under ash in the year 79."))
            #expect(snippet.count <= MaterialSearch.snippetLimit)
            #expect(snippet.count < text.count / 4, "a passage, not the whole text")
            #expect(!snippet.contains("\n") && !snippet.contains("<b>"))

            // One long word after another: the snippet is still cut to the limit.
            let long = Array(repeating: String(repeating: "x", count: 30) + " pompeii", count: 40).joined(separator: " ")
            try await store.addMaterial(Self.note("Long", long), owner: .local)
            for hit in try await store.searchMaterials("pompeii", limit: 3, owner: .local) {
                #expect(hit.snippet.count <= MaterialSearch.snippetLimit)
            }
        }
    }

    // MARK: Search on databases from before

    /// What an older database holds when this version first opens it.
    static let oldMaterials = [trip, swimming]

    @Test("SQLite: materials saved before the search index are indexed when the database is opened")
    func sqliteIndexesOldMaterials() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("old.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v8-tool-calls")
        try old.write { db in
            for (index, material) in Self.oldMaterials.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO material (id, owner, created_at, title, kind, source, text, page_count, read_by)
                        VALUES (?, NULL, '2025-01-01 10:00:00.000', ?, 'text', 'old.txt', ?, 1, 'file')
                        """, arguments: [index + 1, material.title, material.text])
            }
        }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try store.diagnostics().appliedMigrations.suffix(3) == ["v8-tool-calls", "v9-material-search", "v10-material-vectors"])
        #expect(try store.diagnostics().tables.contains("material_search"))
        #expect(try store.searchMaterials("trips", limit: 3).map(\.material) == [1])
        #expect(try store.searchMaterials("swim", limit: 3).map(\.material) == [2])
        // New rows are indexed beside the old ones, by the triggers.
        let added = try store.addMaterial(Self.algebra)
        #expect(try store.searchMaterials("equations", limit: 3).map(\.material) == [added.id])
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("SQLite: a database without the search index (SQLite built without FTS5) is searched in Swift")
    func sqliteFallsBackWithoutIndex() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("plain.sqlite")
        // What the migration leaves where FTS5 is missing: the migration recorded, no index.
        let old = try DatabaseQueue(path: path.path)
        try StoreSchema.migrator.migrate(old, upTo: "v8-tool-calls")
        try old.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-material-search')") }
        try old.close()

        let store = try ConversationStore(path: path)
        #expect(try !store.diagnostics().tables.contains("material_search"))
        let notes = try Self.oldMaterials.map { try store.addMaterial($0) }
        try store.addMaterial(Self.note("Hers", "Her field trip."), owner: .key("ana"))
        #expect(try store.searchMaterials("What do my notes say about the trips?", limit: 3).map(\.material) == [notes[0].id])
        #expect(try store.searchMaterials("swimming", limit: 3).map(\.material) == [notes[1].id])
        for query in Self.hostileQueries {
            let hits = try store.searchMaterials(query, limit: 3)
            #expect(hits.map(\.material) == (query.lowercased().contains("trip") ? [notes[0].id] : []), "query \(query)")
        }
    }

    @Test(
        "PostgreSQL: materials saved before the search column are searchable once the database is migrated",
        .enabled(if: TestPostgres.shouldRun(), Comment(rawValue: TestPostgres.unavailable)))
    func postgresIndexesOldMaterials() async throws {
        let server = try TestPostgres.serverOrSkip()
        let database = try await TestPostgres.createDatabase(on: server)
        do {
            let old = PostgresSchema.migrations.prefix { $0.name != "v6-material-search" }
            #expect(old.last?.name == "v5-tool-calls")
            try await TestPostgres.run(
                "CREATE TABLE parley_schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                on: database)
            for migration in old {
                for statement in migration.statements { try await TestPostgres.run(statement, on: database) }
                try await TestPostgres.run("INSERT INTO parley_schema_migrations (name) VALUES ('\(migration.name)')", on: database)
            }
            try await TestPostgres.run(
                """
                INSERT INTO material (owner, created_at, title, kind, source, text, page_count, read_by)
                VALUES ('', now(), 'Field trip', 'text', 'old.txt', 'The class field trip to the science museum is on Friday.', 1, 'file'),
                       ('key-ana', now(), 'Sports', 'text', 'old.txt', 'Swimming lessons start in May.', 1, 'file')
                """, on: database)

            let store = try await PostgresConversationStore.open(database)
            #expect(
                try await TestPostgres.integer(
                    "SELECT COUNT(*) FROM parley_schema_migrations WHERE name = 'v6-material-search'",
                    on: database) == 1)
            let trips = try await store.searchMaterials("trips", limit: 3, owner: .local)
            #expect(trips.map(\.title) == ["Field trip"])
            #expect(try await store.searchMaterials("swim", limit: 3, owner: .key("key-ana")).map(\.title) == ["Sports"])
            #expect(try await store.searchMaterials("swim", limit: 3, owner: .local).isEmpty)
            await store.close()
        } catch {
            try? await TestPostgres.dropDatabase(database, on: server)
            throw error
        }
        try await TestPostgres.dropDatabase(database, on: server)
    }
}
