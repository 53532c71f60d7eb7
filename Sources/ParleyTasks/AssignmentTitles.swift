import ParleyCore

/// Short names for assignments stated in a message, one per sentence given, in order.
public struct AssignmentTitles: StructuredOutput, Equatable {
    /// The names.
    public var titles: [String]

    /// Creates a value.
    public init(titles: [String]) {
        self.titles = titles
    }

    public static let schema: JSONSchema = .object([
        .init(
            "titles",
            .array(
                of: .string(minLength: 1, maxLength: 80), minItems: 1, maxItems: 12,
                description: "One short name per numbered sentence, in order."))
    ])
}

extension TaskCoordinator {
    /// Names the assignment each of `sentences` states (a teacher's message titled
    /// `subject`): a few words each, such as "Water cycle essay". The message is personal, so
    /// it stays on this machine.
    public func nameAssignments(subject: String, sentences: [String]) async throws -> TaskAnswer<AssignmentTitles> {
        let numbered = sentences.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        return try await run(
            .entityExtraction, AssignmentTitles.self,
            system: """
                A teacher's message states assignments with due dates. For each numbered sentence, name the assignment \
                it states in two to six words, such as "Water cycle essay" or "Chapter 3 exercises", without the date. \
                Give exactly one name per sentence, in order.
                """, user: "Subject: \(subject)\n\(numbered)", maxTokens: 160, isPrivate: true
        ) { value in
            guard case .array(let titles)? = value["titles"], titles.count == sentences.count else {
                return ["give exactly \(sentences.count) title(s), one per numbered sentence"]
            }
            return []
        }
    }
}
