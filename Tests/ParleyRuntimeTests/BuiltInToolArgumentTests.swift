import Foundation
import ParleyCore
import ParleyLocal
import ParleyStore
import ParleyTestLanes
import Testing
@testable import ParleyRuntime

/// The built-in tools' arguments and answers, on a fixed clock in a fixed user zone:
/// Saturday 28 November 2026, 13:44 UTC, the user in Paris (14:44 there).
@Suite("Built-in tools' arguments")
struct BuiltInToolArgumentTests {
    static let now = Date(timeIntervalSince1970: 1_795_873_440)  // 2026-11-28T13:44:00Z
    static let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt

    /// Runs `tool` with `arguments` over `store` on the fixed clock, in Paris.
    static func run(_ tool: String, _ arguments: String, store: (any ConversationStoring)? = nil) async throws -> ToolResult {
        let box = try BuiltInTools.toolbox(store: store, owner: .local, timeZone: paris, now: { now })
        return try #require(await box.run([ToolCall(id: "call_1", name: tool, arguments: arguments)]).first)
    }

    /// A store in a fresh directory, removed after `body`.
    static func withStore(_ body: (ConversationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-builtins-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ConversationStore(path: directory.appendingPathComponent("parley.sqlite")))
    }

    @Test("the clock check: the fixed instant is 13:44 UTC")
    func fixedInstant() {
        #expect(ISO8601DateFormatter().string(from: Self.now) == "2026-11-28T13:44:00Z")
    }

    @Test("current_date_time without a place: the user's own time and zone")
    func ownTime() async throws {
        for arguments in ["{}", "", #"{"place":"  "}"#] {
            let result = try await Self.run("current_date_time", arguments)
            #expect(!result.isError)
            #expect(result.content == "It is 14:44 on Saturday 28 November 2026 (time zone Europe/Paris).", "\(arguments)")
        }
    }

    @Test(
        "current_date_time in a place: its local time and zone",
        arguments: [
            ("Tokyo", "In Tokyo it is 22:44 on Saturday 28 November 2026 (time zone Asia/Tokyo, UTC+09:00)."),
            ("tokyo", "In Tokyo it is 22:44 on Saturday 28 November 2026 (time zone Asia/Tokyo, UTC+09:00)."),
            ("New York City", "In New York City it is 08:44 on Saturday 28 November 2026 (time zone America/New_York, UTC-05:00)."),
            ("São Paulo, Brazil", "In Sao Paulo it is 10:44 on Saturday 28 November 2026 (time zone America/Sao_Paulo, UTC-03:00)."),
            ("Mumbai", "In Mumbai it is 19:14 on Saturday 28 November 2026 (time zone Asia/Kolkata, UTC+05:30)."),
            ("Auckland", "In Auckland it is 02:44 on Sunday 29 November 2026 (time zone Pacific/Auckland, UTC+13:00)."),
            ("Europe/Lisbon", "In Europe/Lisbon it is 13:44 on Saturday 28 November 2026 (time zone Europe/Lisbon, UTC+00:00)."),
            ("america/los_angeles", "In America/Los_Angeles it is 05:44 on Saturday 28 November 2026 (time zone America/Los_Angeles, UTC-08:00)."),
            ("PST", "In PST it is 05:44 on Saturday 28 November 2026 (time zone America/Los_Angeles, UTC-08:00)."),
            ("JST", "In JST it is 22:44 on Saturday 28 November 2026 (time zone Asia/Tokyo, UTC+09:00)."),
            // A city the time zone database is named after, though not in the table.
            ("Kathmandu", "In Kathmandu it is 19:29 on Saturday 28 November 2026 (time zone Asia/Kathmandu, UTC+05:45)."),
            ("Tashkent", "In Tashkent it is 18:44 on Saturday 28 November 2026 (time zone Asia/Tashkent, UTC+05:00)."),
        ])
    func place(_ place: String, _ expected: String) async throws {
        let arguments = JSONValue.object(["place": .string(place)]).text
        let result = try await Self.run("current_date_time", arguments)
        #expect(!result.isError)
        #expect(result.content == expected)
    }

    @Test("an offset from UTC is a zone of its own")
    func offset() {
        #expect(PlaceTimeZones.zone(for: "UTC+5:30")?.secondsFromGMT() == 19_800)
        #expect(PlaceTimeZones.zone(for: "gmt-3")?.secondsFromGMT() == -10_800)
        #expect(PlaceTimeZones.zone(for: "UTC+25") == nil)
        #expect(PlaceTimeZones.zone(for: "UTC")?.secondsFromGMT() == 0)
    }

    @Test("a place of unknown zone is said to be unknown, with no time; a country of several zones asks for a city")
    func unknownPlace() async throws {
        let unknown = try await Self.run("current_date_time", #"{"place":"Atlantis"}"#)
        #expect(!unknown.isError)
        #expect(unknown.content.hasPrefix(#"The time zone of "Atlantis" is not known"#), "\(unknown.content)")
        #expect(!unknown.content.contains(":44") && !unknown.content.contains("14:"), "\(unknown.content)")
        let several = try await Self.run("current_date_time", #"{"place":"the United States"}"#)
        #expect(several.content.hasPrefix("the United States has several time zones"), "\(several.content)")
        #expect(!several.content.contains(":44"))
        #expect(PlaceTimeZones.answer(for: "Australia") == .ambiguous(name: "Australia"))
    }

    @Test("the tool declares its place as an optional string")
    func declaration() throws {
        let definition = try #require(BuiltInTools.definitions().first { $0.name == "current_date_time" })
        #expect(definition.parameters["properties"]?["place"]?["type"] == .string("string"))
        #expect(definition.parameters["required"]?.array?.isEmpty ?? true)
    }

    @Test("upcoming_assignments: days and times in the user's zone, soonest first")
    func assignments() async throws {
        try await Self.withStore { store in
            // Due 23:30 in Los Angeles on Monday 30 November: Tuesday 08:30 in Paris.
            let lateMonday = try #require(ISO8601DateFormatter().date(from: "2026-12-01T07:30:00Z"))
            try store.saveAssignment(
                NewAssignment(
                    origin: "calendar:a", source: "calendar", title: "Lab report",
                    dueDay: "2026-11-30", dueAt: lateMonday))
            try store.saveAssignment(
                NewAssignment(
                    origin: "calendar:b", source: "calendar", title: "Essay", details: "Two pages.",
                    dueDay: "2026-11-30"))
            // Due 23:00 UTC on Saturday: past midnight in Paris, so Sunday there.
            let tonight = try #require(ISO8601DateFormatter().date(from: "2026-11-28T23:30:00Z"))
            try store.saveAssignment(NewAssignment(origin: "calendar:c", source: "calendar", title: "Quiz", dueDay: "2026-11-28", dueAt: tonight))
            try store.saveAssignment(NewAssignment(origin: "calendar:d", source: "calendar", title: "Old", dueDay: "2026-11-27"))
            let result = try await Self.run("upcoming_assignments", #"{"days":3}"#, store: store)
            #expect(
                result.content == """
                    Today is Saturday 2026-11-28. Due in the next 3 days:
                    - Quiz, due Sunday 2026-11-29 at 00:30
                    - Essay, due Monday 2026-11-30: Two pages.
                    - Lab report, due Tuesday 2026-12-01 at 08:30
                    """, "\(result.content)")
            let none = try await Self.run("upcoming_assignments", "{}", store: nil)
            #expect(none.content == "Today is Saturday 2026-11-28. Nothing is due in the next 7 days.")
        }
    }

    @Test("search_materials: each passage says when its material was saved, as a day of the user's")
    func materials() async throws {
        try await Self.withStore { store in
            let trip = try store.addMaterial(
                NewMaterial(
                    title: "Class notes", kind: "text", source: "notes.md",
                    text: "The field trip to the science museum is on Friday.", pageCount: 1, readBy: "file"))
            let result = try await Self.run("search_materials", #"{"query":"field trip"}"#, store: store)
            let saved = BuiltInTools.spokenDay(trip.createdAt, in: Self.paris)
            #expect(
                result.content == "From \"Class notes\" (material \(trip.id), saved \(saved)): The field trip to the science museum is on Friday.",
                "\(result.content)")
        }
    }

    @Test("a day's weekday", arguments: [("2026-11-28", "Saturday 2026-11-28"), ("2026-12-04", "Friday 2026-12-04"), ("soon", "soon")])
    func weekday(_ day: String, _ spoken: String) {
        #expect(BuiltInTools.spokenDay(day) == spoken)
    }
}

/// The clock with the on-device model in the loop (SmolLM2-135M, the suite's model): the cue
/// makes the call with the place the question names, and the model answers from its result.
@Suite("Built-in clock with the on-device model", .serialized, .onDeviceEngines)
struct BuiltInClockModelTests {
    @Test("\"What time is it in Tokyo right now?\" is answered with Tokyo's time, not the user's")
    func tokyo() async throws {
        let path = ParleyPaths.current().defaultLanguageModel
        try #require(FileManager.default.fileExists(atPath: path.path), "Missing \(path.path): run scripts/setup first.")
        let model = LlamaLanguageModel(configuration: .init(modelPath: path.path, contextLength: 2048, threads: 2))
        let box = try BuiltInTools.toolbox(
            store: nil, owner: .local, timeZone: BuiltInToolArgumentTests.paris,
            now: { BuiltInToolArgumentTests.now })
        let loop = ToolLoop(llm: model, toolbox: box)
        let request = ChatRequest(
            messages: [
                .system("You are a helpful voice assistant. Answer in one short sentence."),
                .user("What time is it in Tokyo right now?"),
            ],
            sampling: SamplingOptions(temperature: 0, maxTokens: 40))
        let outcome = try await loop.run(request, clock: ContinuousClock())
        let call = try #require(outcome.results.first?.call)
        #expect(call.name == "current_date_time" && call.arguments == #"{"place":"Tokyo"}"#)
        #expect(outcome.results.first?.content.hasPrefix("In Tokyo it is 22:44 on Saturday 28 November 2026") == true)
        // The user's own time (14:44 in Paris) is nowhere in the answer.
        #expect(outcome.reply.text.contains("22:44") && !outcome.reply.text.contains("14:44"), "reply: \(outcome.reply.text)")
    }
}
