import Foundation
import ParleyCore
import ParleyStore

/// The tools every face offers by default, over the user's own data: search the study
/// materials, the assignments coming up (from the Google sync), and today's date and time in
/// the user's time zone. Each reads only `owner`'s data.
public enum BuiltInTools {
    /// The built-in tools' names, in the order offered.
    public static let names = ["search_materials", "upcoming_assignments", "current_date_time"]

    /// What each tool does, for `parley tools`.
    public static func definitions() -> [ToolDefinition] {
        // The definitions need no store; any one will do to read them.
        ((try? toolbox(store: nil, owner: .local))?.definitions) ?? []
    }

    /// The built-in tools over `store` for `owner`, times in `timeZone`; `now` is the clock
    /// they read (for tests). Without a store the data tools answer that nothing is saved. With
    /// an `embedder` (``Runtime/onDeviceEmbedder()``) materials are searched by meaning as well
    /// as by words (``MaterialFinder``).
    public static func toolbox(store: (any ConversationStoring)?, owner: Owner, embedder: (any EmbeddingProvider)? = nil,
                               timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() }) throws -> ToolBox {
        var box = try ToolBox()
        try box.register(
            name: "search_materials",
            description: "Search the user's own notes and study materials; returns matching passages.",
            // A few key words: a small model otherwise writes whole sentences it imagines the notes hold.
            parameters: .object([.init("query", .string(minLength: 1, maxLength: 60, description: "A few key words to look for, e.g. \"field trip\".")),
                                 .optional("limit", .integer(minimum: 1, maximum: 5))]),
            timeout: .seconds(5)
        ) { (arguments: SearchArguments) -> String in
            // Plain text: small models read it more reliably than nested JSON.
            guard let store else { return "No materials are saved." }
            // The store's own full-text engine searches (and the embedder, when there is one);
            // the materials are counted only to say that none matched.
            let hits = try await MaterialFinder(store: store, embedder: embedder)
                .search(arguments.query, limit: arguments.limit ?? 3, owner: owner)
            guard !hits.isEmpty else {
                let count = try await store.materials(owner: owner).count
                return "Nothing in the \(count) saved materials matches \"\(arguments.query)\"."
            }
            return hits.map { "From \"\($0.title)\" (material \($0.material)): \($0.snippet)" }.joined(separator: "\n\n")
        }
        try box.register(
            name: "upcoming_assignments",
            description: "The user's assignments and homework due in the next days, soonest first.",
            parameters: .object([.optional("days", .integer(minimum: 1, maximum: 60))]),
            timeout: .seconds(5)
        ) { (arguments: AssignmentArguments) -> String in
            let today = BuiltInTools.day(now(), in: timeZone)
            let days = arguments.days ?? 7
            let last = BuiltInTools.day(now().addingTimeInterval(Double(days) * 86_400), in: timeZone)
            let due = try await store?.assignments(owner: owner).filter { $0.dueDay >= today && $0.dueDay <= last } ?? []
            guard !due.isEmpty else { return "Today is \(today). Nothing is due in the next \(days) days." }
            let lines = due.map { item in
                "- \(item.title), due \(item.dueDay)" + (item.details.isEmpty ? "" : ": \(item.details.prefix(200))")
            }
            return "Today is \(today). Due in the next \(days) days:\n" + lines.joined(separator: "\n")
        }
        try box.register(
            name: "current_date_time",
            description: "Today's date, weekday and time in the user's time zone.",
            parameters: .object([]),
            timeout: .seconds(1)
        ) { (_: NoArguments) -> String in
            let date = now()
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = "EEEE d MMMM yyyy, HH:mm"
            return "It is \(formatter.string(from: date)) (\(BuiltInTools.day(date, in: timeZone)), time zone \(timeZone.identifier))."
        }
        // Questions that plainly want a look-up begin with the call (see ToolBox.cue).
        // Their arguments come from the words too (the question is the search; the others need
        // none), so the call costs no round of the model's.
        box.cue("search_materials", when: Cues.materials) { words in .object(["query": .string(Cues.searchQuery(words))]) }
        box.cue("upcoming_assignments", when: Cues.assignments) { _ in .object([:]) }
        box.cue("current_date_time", when: Cues.dateTime) { _ in .object([:]) }
        return box
    }

    /// The user's words that plainly want one of the built-in tools.
    public enum Cues {
        /// "What do my notes say about …", "in our class materials", "my study guide".
        public static func materials(_ text: String) -> Bool {
            matches(text, #"\b(my|our)\b[\w\s'’-]{0,24}?\b(notes?|materials?|handouts?|worksheets?|slides|readings?|documents?|textbooks?|study guides?|files?)\b"#)
        }

        /// "What homework is due …", "my assignments", "any deadlines" (not "due to").
        public static func assignments(_ text: String) -> Bool {
            matches(text, #"\b(homework|assignments?|deadlines?|coursework)\b|\bdue\b(?!\s+to\b)"#)
        }

        /// "What's the date?", "what day is it", "what time is it now", "today's date" (not
        /// "what is the date of the trip?", which is a question for the notes).
        public static func dateTime(_ text: String) -> Bool {
            matches(text, #"\bwhat\s+(day|date|time)\s+is\s+it\b|\bwhat(\s+is|'s|’s)\s+(the\s+)?(date|day|time)(\s+(today|now|it|right now))?\s*[?.!]*\s*$|\btoday['’]?s\s+date\b|\bcurrent\s+(date|time)\b|\bwhat\s+day\s+of\s+the\s+week\s+is\s+(it|today)\b"#)
        }

        /// The search for a question about the notes: its searchable words (the ones the store's
        /// search reads, less "what", "my", "notes", "say" and the like), at most 60 characters.
        public static func searchQuery(_ question: String) -> String {
            let words = MaterialSearch.queryWords(question)
            let query = words.isEmpty ? question.trimmingCharacters(in: .whitespacesAndNewlines) : words.joined(separator: " ")
            return String(query.prefix(60))
        }

        private static func matches(_ text: String, _ pattern: String) -> Bool {
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return false }
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    /// `date` as YYYY-MM-DD in `timeZone`.
    static func day(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    struct SearchArguments: Decodable, Sendable {
        var query: String
        var limit: Int?
    }

    struct AssignmentArguments: Decodable, Sendable { var days: Int? }

    struct NoArguments: Decodable, Sendable {}
}
