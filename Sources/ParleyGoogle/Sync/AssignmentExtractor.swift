import Foundation
import Logging

/// An assignment read from a message: what, and when it is due.
public struct ExtractedAssignment: Sendable, Equatable {
    /// A short name.
    public var title: String
    /// The sentence that states it.
    public var sentence: String
    /// The day it is due, `YYYY-MM-DD`.
    public var day: String
    /// The exact time, when the message gives one.
    public var time: Date?
}

/// Reads the assignments in a teacher's message: the due dates are found and resolved by
/// ``DueDateFinder`` (a rule, so a date is never invented), and a language model names each
/// assignment with the structured tasks (on this machine by default: the message is
/// personal). Without a model, or when it fails, the subject names them.
public struct AssignmentExtractor: Sendable {
    /// Names the assignments each sentence states: the message's subject and the sentences
    /// in; one name per sentence out.
    public typealias Namer = @Sendable (_ subject: String, _ sentences: [String]) async throws -> [String]

    let namer: Namer?
    let logger: Logger

    /// An extractor that names assignments with `namer`, or from the subject when `nil`.
    public init(namer: Namer?, logger: Logger = Logger(label: "parley.google")) {
        self.namer = namer
        self.logger = logger
    }

    /// The assignments in `message`, one per due day, in the order the message states them.
    public func assignments(in message: GmailMessage, receivedAt fallback: Date) async -> [ExtractedAssignment] {
        let finder = DueDateFinder(reference: message.sentAt ?? fallback, timeZone: message.sentTimeZone)
        var mentions = finder.mentions(in: message.text)
        if mentions.isEmpty { mentions = finder.mentions(in: message.subject) }
        var seenDays: Set<String> = []
        mentions = mentions.filter { seenDays.insert($0.day).inserted }
        guard !mentions.isEmpty else { return [] }
        let subject = message.subject.trimmingCharacters(in: .whitespaces)
        var titles = mentions.map { Self.fallbackTitle(subject: subject, sentence: $0.sentence, alone: mentions.count == 1) }
        if let namer {
            do {
                let named = try await namer(subject, mentions.map(\.sentence))
                let cleaned = named.map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\".:"))) }
                if cleaned.count == mentions.count, cleaned.allSatisfy({ !$0.isEmpty }) {
                    titles = cleaned
                } else {
                    logger.warning("[google] assignment names from the model did not fit the \(mentions.count) sentence(s); the subject names them")
                }
            } catch {
                logger.warning("[google] assignments named from the subject: the language model failed (\(error))")
            }
        }
        return zip(mentions, titles).map { mention, title in
            ExtractedAssignment(title: title, sentence: mention.sentence, day: mention.day, time: mention.time)
        }
    }

    static func fallbackTitle(subject: String, sentence: String, alone: Bool) -> String {
        if alone, !subject.isEmpty { return subject }
        let short = sentence.count > 60 ? String(sentence.prefix(57)) + "…" : sentence
        return subject.isEmpty ? short : "\(subject): \(short)"
    }
}
