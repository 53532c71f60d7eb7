import Foundation

/// A due date stated in a sentence.
public struct DueMention: Sendable, Equatable {
    /// The sentence that states it.
    public var sentence: String
    /// The day it is due, `YYYY-MM-DD`.
    public var day: String
    /// The time it is due, when the sentence gives one.
    public var time: Date?
}

/// Finds due dates in a message's text, resolved against the day it was sent, the way a
/// reader would: "due Friday" in a mail sent on Tuesday is that week's Friday.
///
/// A sentence counts when it has a due cue (due, deadline, submit, hand in, turn in, by,
/// before, no later than) and a date: `2026-12-04`; `December 4` or `4 December`, with or
/// without a year (the next such day on or after the message, give or take two months);
/// `today`, `tonight`, `tomorrow`; a weekday (the next one after the day it was sent); `next`
/// and a weekday (the one in the following week); `in N days/weeks`. A time in the same
/// sentence (`5pm`, `5:30 p.m.`, `17:00`, `noon`, `midnight`) makes the due date exact, in the
/// sender's time zone. Numeric dates such as 12/4 are left alone: their order depends on the
/// country.
public struct DueDateFinder: Sendable {
    /// When the message was sent.
    public var reference: Date
    /// The sender's time zone.
    public var timeZone: TimeZone

    /// A finder for a message sent at `reference` in `timeZone`.
    public init(reference: Date, timeZone: TimeZone) {
        self.reference = reference
        self.timeZone = timeZone
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        return calendar
    }

    /// Every sentence of `text` that states a due date, in order.
    public func mentions(in text: String) -> [DueMention] {
        Self.sentences(of: text).compactMap { sentence in
            guard Self.matches(Self.cue, sentence) != nil, let day = date(in: sentence) else { return nil }
            return DueMention(sentence: sentence, day: Self.dayString(day, calendar: calendar), time: time(in: sentence, on: day))
        }
    }

    /// The date a sentence names, as the start of that day.
    func date(in sentence: String) -> Date? {
        let lower = sentence.lowercased()
        let today = calendar.startOfDay(for: reference)
        if let m = Self.matches(Self.iso, lower), let y = Int(m[1]), let mo = Int(m[2]), let d = Int(m[3]) {
            return day(y, mo, d)
        }
        if let m = Self.matches(Self.monthDay, lower), let month = Self.month(m[1]), let d = Int(m[2]) {
            return dated(month: month, day: d, year: Int(m[4]))
        }
        if let m = Self.matches(Self.dayMonth, lower), let d = Int(m[1]), let month = Self.month(m[2]) {
            return dated(month: month, day: d, year: Int(m[4]))
        }
        if let m = Self.matches(Self.relativeDay, lower) {
            return calendar.date(byAdding: .day, value: m[1] == "tomorrow" ? 1 : 0, to: today)
        }
        if let m = Self.matches(Self.inSpan, lower), let count = Self.number(m[1]) {
            let days = m[2].hasPrefix("week") ? count * 7 : count
            return calendar.date(byAdding: .day, value: days, to: today)
        }
        if let m = Self.matches(Self.weekday, lower), let target = Self.weekdays.firstIndex(of: m[2]) {
            // Calendar weekdays: 1 = Sunday … 7 = Saturday.
            let weekday = target + 1
            let current = calendar.component(.weekday, from: today)
            var ahead = (weekday - current + 7) % 7
            if ahead == 0 { ahead = 7 }
            guard var date = calendar.date(byAdding: .day, value: ahead, to: today) else { return nil }
            if m[1] == "next", calendar.isDate(date, equalTo: today, toGranularity: .weekOfYear) {
                date = calendar.date(byAdding: .day, value: 7, to: date) ?? date
            }
            return date
        }
        return nil
    }

    /// The time of day the sentence names, on `day`.
    func time(in sentence: String, on day: Date) -> Date? {
        let lower = sentence.lowercased()
        var hour: Int?
        var minute = 0
        if let m = Self.matches(Self.clock12, lower), var h = Int(m[1]), h >= 1, h <= 12 {
            minute = Int(m[3]) ?? 0
            let pm = m[4].hasPrefix("p")
            if pm, h < 12 { h += 12 }
            if !pm, h == 12 { h = 0 }
            hour = h
        } else if let m = Self.matches(Self.clock24, lower), let h = Int(m[1]), let mi = Int(m[2]), h < 24, mi < 60 {
            hour = h
            minute = mi
        } else if Self.matches(Self.noon, lower) != nil {
            hour = 12
        } else if Self.matches(Self.midnight, lower) != nil {
            // "By midnight" on a day is the end of that day.
            hour = 23
            minute = 59
        }
        guard let hour else { return nil }
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day)
    }

    private func day(_ year: Int, _ month: Int, _ day: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// A month and day, in `year` or else the year that puts it nearest after the message.
    private func dated(month: Int, day d: Int, year: Int?) -> Date? {
        if let year { return day(year, month, d) }
        let sentYear = calendar.component(.year, from: reference)
        guard let candidate = day(sentYear, month, d) else { return nil }
        // Two months back is a late reminder; further back means next year.
        if let limit = calendar.date(byAdding: .month, value: -2, to: calendar.startOfDay(for: reference)), candidate < limit {
            return day(sentYear + 1, month, d)
        }
        return candidate
    }

    static func dayString(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    // MARK: Patterns

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    private static let monthName =
        "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?"

    private static let cue = #"\b(due|deadline|submit|hand(?:ed)? (?:\w+ )?in|turn(?:ed)? (?:\w+ )?in|by|before|no later than)\b"#
    private static let iso = #"\b(\d{4})-(\d{2})-(\d{2})\b"#
    private static let monthDay = "\\b" + monthName + "\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(,?\\s+(\\d{4}))?"
    private static let dayMonth = "\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?" + monthName + "(,?\\s+(\\d{4}))?\\b"
    private static let relativeDay = #"\b(today|tonight|tomorrow)\b"#
    private static let inSpan = #"\bin\s+(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?)\b"#
    private static let weekday = #"\b(?:(next|this|on|by|before)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"#
    private static let clock12 = #"\b(\d{1,2})(:(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)"#
    private static let clock24 = #"\b([01]?\d|2[0-3]):([0-5]\d)\b"#
    private static let noon = #"\bnoon\b"#
    private static let midnight = #"\bmidnight\b"#

    private static func month(_ name: String) -> Int? {
        months.firstIndex { name.hasPrefix($0) }.map { $0 + 1 }
    }

    private static func number(_ word: String) -> Int? {
        if let value = Int(word) { return value }
        let words = [
            "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10,
        ]
        return words[word]
    }

    /// The groups of the first match of `pattern` in `text` (case-insensitive), "" for a
    /// group that did not take part; `nil` when nothing matches.
    static func matches(_ pattern: String, _ text: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        return (0..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }

    private static let abbreviations: Set<String> = [
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
        "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "mr", "mrs", "ms", "dr", "st", "no", "e.g", "i.e", "vs",
    ]

    /// Whether `text` (ending with a period) ends with an abbreviation such as "Dec." or "Mr.".
    private static func endsWithAbbreviation(_ text: String) -> Bool {
        let word = text.dropLast().split(separator: " ").last.map { $0.lowercased() } ?? ""
        return abbreviations.contains(word) || word.count == 1
    }

    /// Sentences: lines, split after `.`, `!` or `?` followed by a space.
    static func sentences(of text: String) -> [String] {
        let text = text.replacingOccurrences(of: #"\b([ap])\.m\."#, with: "$1m", options: [.regularExpression, .caseInsensitive])
        return text.components(separatedBy: .newlines).flatMap { line -> [String] in
            var sentences: [String] = []
            var current = ""
            let characters = Array(line)
            for (index, character) in characters.enumerated() {
                current.append(character)
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                if ".!?".contains(character), next == " ", !(character == "." && Self.endsWithAbbreviation(current)) {
                    sentences.append(current)
                    current = ""
                }
            }
            sentences.append(current)
            return sentences.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}
