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
    /// an `embedder` (``Runtime/onDeviceEmbedder(warn:)``) materials are searched by meaning as well
    /// as by words (``MaterialFinder``).
    /// With a `language` other than English (a code), the user's own date and time is said in
    /// it (weekday, day, month, year and time in its words and order, then the time zone).
    public static func toolbox(
        store: (any ConversationStoring)?, owner: Owner, embedder: (any EmbeddingProvider)? = nil,
        timeZone: TimeZone = .current, language: String? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> ToolBox {
        var box = try ToolBox()
        try box.register(
            name: "search_materials",
            description: "Search the user's own notes and study materials; returns matching passages.",
            // A few key words: a small model otherwise writes whole sentences it imagines the notes hold.
            parameters: .object([
                .init("query", .string(minLength: 1, maxLength: 60, description: "A few key words to look for, e.g. \"field trip\".")),
                .optional("limit", .integer(minimum: 1, maximum: 5)),
            ]),
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
            // When each was saved, as a day of the user's ("the notes from last Monday").
            var saved: [Int64: String] = [:]
            for hit in hits where saved[hit.material] == nil {
                if let material = try await store.material(hit.material, owner: owner) {
                    saved[hit.material] = BuiltInTools.spokenDay(material.createdAt, in: timeZone)
                }
            }
            return hits.map { hit in
                let when = saved[hit.material].map { ", saved \($0)" } ?? ""
                return "From \"\(hit.title)\" (material \(hit.material)\(when)): \(hit.snippet)"
            }.joined(separator: "\n\n")
        }
        try box.register(
            name: "upcoming_assignments",
            description: "The user's assignments and homework due in the next days, soonest first.",
            parameters: .object([.optional("days", .integer(minimum: 1, maximum: 60))]),
            timeout: .seconds(5)
        ) { (arguments: AssignmentArguments) -> String in
            let all = try await store?.assignments(owner: owner) ?? []
            return BuiltInTools.upcoming(all, days: arguments.days ?? 7, now: now(), in: timeZone)
        }
        try box.register(
            name: "current_date_time",
            // Short words: every prompt with the tools carries them (each token costs the first
            // run of an instruction set on two cores).
            description: "Today's date, weekday and time, the user's or in a place asked about.",
            parameters: .object([.optional("place", .string(maxLength: 60, description: "A city or time zone, e.g. \"Tokyo\"."))]),
            timeout: .seconds(1)
        ) { (arguments: DateTimeArguments) -> String in
            BuiltInTools.dateTime(at: now(), place: arguments.place, userZone: timeZone, language: language)
        }
        // Questions that plainly want a look-up begin with the call (see ToolBox.cue).
        // Their arguments come from the words too (the question is the search; the others need
        // none), so the call costs no round of the model's.
        box.cue("search_materials", when: Cues.materials) { words in .object(["query": .string(Cues.searchQuery(words))]) }
        box.cue("upcoming_assignments", when: Cues.assignments) { _ in .object([:]) }
        box.cue("current_date_time", when: Cues.dateTime) { words in
            Cues.place(in: words).map { .object(["place": .string($0)]) } ?? .object([:])
        }
        return box
    }

    /// The user's words that plainly want one of the built-in tools.
    public enum Cues {
        /// "What do my notes say about …", "in our class materials", "my study guide"; in
        /// Italian, Spanish, French and German too ("i miei appunti", "mis apuntes", "mes
        /// notes", "meine Notizen").
        public static func materials(_ text: String) -> Bool {
            matches(
                text, #"\b(my|our)\b[\w\s'’-]{0,24}?\b(notes?|materials?|handouts?|worksheets?|slides|readings?|documents?|textbooks?|study guides?|files?)\b"#)
                || matches(text, localizedMaterials)
        }

        /// "What homework is due …", "my assignments", "any deadlines" (not "due to"); "i
        /// compiti", "los deberes", "mes devoirs", "die Hausaufgaben".
        public static func assignments(_ text: String) -> Bool {
            matches(text, #"\b(homework|assignments?|deadlines?|coursework)\b|\bdue\b(?!\s+to\b)"#) || matches(text, localizedAssignments)
        }

        /// Italian, Spanish, French and German: a possessive, then the notes or materials.
        static let localizedMaterials =
            #"\b(mie[io]?|nostr[aieo]|mis?|nuestr[ao]s?|mes|nos|notre|mon|ma|meine?[nm]?|unsere?[nm]?)\b[\p{L}\s'’-]{0,24}?\b(appunti|note|materiali|dispense|apuntes|notas|materiales|documentos|notes|cours|documents|fiches|notizen|unterlagen|materialien|mitschriften)\b"#
        /// Italian, Spanish, French and German words for homework, assignments and deadlines.
        static let localizedAssignments =
            #"\b(compiti|scadenz[ae]|consegn[ae]|deberes|tareas|entregas?|devoirs|échéances?|hausaufgaben|abgaben?|abgabetermine?)\b"#

        /// "What's the date?", "what day is it", "what time is it now", "today's date", and the
        /// same about a place ("what time is it in Tokyo right now?", "what's the time in New
        /// York?", "the local time in Sydney"); not "what is the date of the trip?", which is a
        /// question for the notes.
        public static func dateTime(_ text: String) -> Bool {
            matches(text, localizedDateTime)
                || matches(
                    text,
                    #"\bwhat\s+(day|date|time)\s+is\s+it\b|\bwhat(\s+is|'s|’s)\s+(the\s+)?(local\s+)?(date|day|time)(\s+in\s+\#(placeWords))?(\s+(today|now|it|right now))?\s*[?.!]*\s*$|\btoday['’]?s\s+date\b|\bcurrent\s+(date|time)\b|\blocal\s+time\s+in\b|\bwhat\s+day\s+of\s+the\s+week\s+is\s+(it|today)\b"#
                )
        }

        /// "Che ore sono?", "che giorno è oggi", "¿Qué hora es?", "¿qué día es hoy?", "Quelle
        /// heure est-il ?", "quel jour sommes-nous", "Wie spät ist es?", "welcher Tag ist heute".
        static let localizedDateTime =
            #"\bche\s+(ore\s+sono|ora\s+è|giorno\s+è)\b|\bqu[ée]\s+(hora\s+es|d[ií]a\s+es)\b|\bquelle\s+heure\s+est[\s-]il\b|\bquel\s+jour\s+(sommes[\s-]nous|est[\s-]on|on\s+est)\b|\bwie\s+spät\s+ist\s+es\b|\bwelche[rn]?\s+(tag|datum)\s+(ist|haben\s+wir)\b"#

        /// The place a question about the date or time names ("Tokyo" in "What time is it in
        /// Tokyo right now?"): the words after its last "in", less "right now", "now", "today"
        /// and the final punctuation; `nil` when it names none.
        public static func place(in question: String) -> String? {
            let pattern = #"^.*\bin\s+(\#(placeWords))(\s+(right\s+now|now|today|at\s+the\s+moment|currently))?\s*[?.!]*\s*$"#
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
                let match = expression.firstMatch(in: question, range: NSRange(question.startIndex..., in: question)),
                let range = Range(match.range(at: 1), in: question)
            else { return nil }
            let place = question[range].trimmingCharacters(in: .whitespaces)
            return place.isEmpty ? nil : place
        }

        /// The words of a place's name: letters first, then letters, spaces, dots, apostrophes,
        /// slashes (`Europe/Paris`), underscores, hyphens, digits, colons and signs (`UTC+5:30`).
        private static let placeWords = #"\p{L}[\p{L}\d\s.'’/_:+-]{0,59}?"#

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

    /// `date` in `timeZone` with `format` (a `DateFormatter` pattern), in English.
    static func format(_ date: Date, _ format: String, in timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    /// `date`'s day in `timeZone` as a weekday and YYYY-MM-DD: "Friday 2026-12-04".
    static func spokenDay(_ date: Date, in timeZone: TimeZone) -> String {
        format(date, "EEEE", in: timeZone) + " " + day(date, in: timeZone)
    }

    /// A calendar day written YYYY-MM-DD with its weekday ("Friday 2026-12-04"); as written
    /// when it is not such a day.
    static func spokenDay(_ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let utc = TimeZone(identifier: "UTC") else { return day }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return day }
        return format(date, "EEEE", in: utc) + " " + day
    }

    /// The answer of `current_date_time` at `date`: the time in `place` when one is named (its
    /// name, local time and zone), else in `userZone`; the time first and no figure twice (a
    /// small model reads the result out as it is). A place whose zone is not known, or that
    /// has several, is said so, with no time: a guess would be said as fact.
    static func dateTime(at date: Date, place: String?, userZone: TimeZone, language: String? = nil) -> String {
        let named = place?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if named.isEmpty, let language, language != "en" {
            return "\(LocalizedPhrases.spokenDateTime(date, language: language, timeZone: userZone)) (\(userZone.identifier))."
        }
        guard !named.isEmpty else {
            return "It is \(format(date, "HH:mm 'on' EEEE d MMMM yyyy", in: userZone)) (time zone \(userZone.identifier))."
        }
        switch PlaceTimeZones.answer(for: named) {
        case .zone(let name, let zone):
            return "In \(name) it is \(format(date, "HH:mm 'on' EEEE d MMMM yyyy", in: zone)) "
                + "(time zone \(zone.identifier), UTC\(format(date, "xxxxx", in: zone)))."
        case .ambiguous(let name):
            return "\(name) has several time zones: the time there depends on the city. Ask the user which city they mean."
        case .unknown:
            return "The time zone of \"\(named)\" is not known, so its time cannot be told. "
                + "Tell the user, and ask for a major city or a time zone such as Europe/Paris."
        }
    }

    /// The answer of `upcoming_assignments`: those of `all` due from today through `days` days
    /// on, soonest first, with days in `timeZone` (an assignment due at a time is due on that
    /// time's day there, and the time is said in that zone).
    static func upcoming(_ all: [Assignment], days: Int, now: Date, in timeZone: TimeZone) -> String {
        let today = day(now, in: timeZone)
        let last = day(now.addingTimeInterval(Double(days) * 86_400), in: timeZone)
        let due =
            all
            .map { item in (item: item, day: item.dueAt.map { day($0, in: timeZone) } ?? item.dueDay) }
            .filter { $0.day >= today && $0.day <= last }
            .sorted { ($0.day, $0.item.dueAt ?? .distantFuture) < ($1.day, $1.item.dueAt ?? .distantFuture) }
        let opening = "Today is \(spokenDay(now, in: timeZone))."
        guard !due.isEmpty else { return "\(opening) Nothing is due in the next \(days) days." }
        let lines = due.map { entry in
            let time = entry.item.dueAt.map { " at " + format($0, "HH:mm", in: timeZone) } ?? ""
            return "- \(entry.item.title), due \(spokenDay(entry.day))\(time)" + (entry.item.details.isEmpty ? "" : ": \(entry.item.details.prefix(200))")
        }
        return "\(opening) Due in the next \(days) days:\n" + lines.joined(separator: "\n")
    }

    struct SearchArguments: Decodable, Sendable {
        var query: String
        var limit: Int?
    }

    struct AssignmentArguments: Decodable, Sendable { var days: Int? }

    struct DateTimeArguments: Decodable, Sendable { var place: String? }
}
