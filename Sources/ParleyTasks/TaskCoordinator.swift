import Foundation
import ParleyCore

/// A task's typed answer, and who gave it and why.
public struct TaskAnswer<Value: Sendable>: Sendable {
    /// The answer.
    public var value: Value
    /// The structured result it came from: the provider, the reason, the attempts.
    public var result: StructuredResult

    /// The provider that answered.
    public var provider: ProviderIdentity { result.provider }
    /// Why that provider answered: the task's order and what happened to those before it.
    public var reason: String { result.reason }
}

/// A simplification with the readability it was measured at.
public struct Simplification: Sendable, Equatable {
    /// The rewritten text.
    public var text: String
    /// The original's readability.
    public var before: Readability
    /// The rewrite's readability; its grade is lower than the original's.
    public var after: Readability
}

/// The learning tasks (MirrorBuddy's coordinator, ProjectOne's router): each task asks for a
/// typed value, from the providers in the order its ``TaskPolicy`` gives, through the
/// ``StructuredGenerator`` (schema-constrained, validated, repaired, failed over).
public struct TaskCoordinator<C: Clock>: Sendable where C.Duration == Duration {
    /// Makes the values.
    public let generator: StructuredGenerator<C>
    /// Provider order per task.
    public let policy: TaskPolicy

    /// Creates a coordinator.
    public init(generator: StructuredGenerator<C>, policy: TaskPolicy = .standard) {
        self.generator = generator
        self.policy = policy
    }

    /// Runs `task` for a value of `type`; `check` adds rules the schema cannot state. Sampling
    /// is greedy: the same text gets the same answer from the same model.
    public func run<T: StructuredOutput>(
        _ task: TaskKind, _ type: T.Type, system: String, user: String, maxTokens: Int = 768,
        isPrivate: Bool = false,
        check: (@Sendable (JSONValue) -> [String])? = nil
    ) async throws -> TaskAnswer<T> {
        let (order, rules) = policy.order(for: task, among: generator.providers)
        let request = StructuredRequest(
            messages: [.system(system), .user(user)], schema: T.schema, name: task.rawValue,
            sampling: SamplingOptions(temperature: 0, maxTokens: maxTokens), task: task, isPrivate: isPrivate)
        let result = try await generator.generate(request, order: order, rules: rules, check: check)
        return TaskAnswer(value: try T(json: result.value), result: result)
    }

    /// The people, places, organizations and concepts in `text`.
    public func extractEntities(from text: String) async throws -> TaskAnswer<Entities> {
        try await run(
            .entityExtraction, Entities.self,
            system: """
                Extract the named entities from the user's text. people: names of persons. places: cities, countries, \
                regions, landmarks. organizations: companies, institutions, teams. concepts: the key ideas or topics, a few \
                words each. Use the words of the text; leave a list empty when it has none.
                """, user: text)
    }

    /// A title, key points and a short summary of `text`.
    public func summarize(_ text: String) async throws -> TaskAnswer<Summary> {
        try await run(
            .summary, Summary.self,
            system: """
                Summarize the user's text: a short title, one to five key points (one sentence each), and a summary of two \
                or three sentences. Use only what the text says.
                """, user: text)
    }

    /// `task` as three to seven small steps with minutes each.
    public func breakDown(_ task: String) async throws -> TaskAnswer<TaskBreakdown> {
        try await run(
            .taskBreakdown, TaskBreakdown.self,
            system: """
                Break the user's task into three to seven small, concrete steps for a student who can hold only a little in \
                mind at once: one action per step, in short plain words, in the order to do them, each with the minutes it \
                takes (1 to 30).
                """, user: task)
    }

    /// `text` rewritten for a reader with dyslexia; the result reads at a lower grade (a
    /// provider whose rewrite does not is asked again, then the next one is tried).
    public func simplify(_ text: String) async throws -> (answer: TaskAnswer<SimplifiedText>, simplification: Simplification) {
        let before = Readability(text)
        let words = before.words
        let answer = try await run(
            .simplification, SimplifiedText.self,
            system: """
                Rewrite the user's text for a reader with dyslexia. Use short sentences of at most twelve words, common \
                everyday words, one idea per sentence, and the active voice. Keep every fact. Add nothing.
                """, user: text, maxTokens: max(256, min(2_048, words * 3)),
            check: { value in
                guard let rewritten = value["text"]?.string else { return [] }
                let after = Readability(rewritten)
                guard after.words >= max(1, words / 4) else {
                    return ["The rewrite drops too much: keep every fact of the original."]
                }
                guard after.grade < before.grade else {
                    return [
                        "The rewrite reads at grade \(Readability.rounded(after.grade)), no easier than the original "
                            + "(grade \(Readability.rounded(before.grade))): use shorter sentences and shorter, more common words."
                    ]
                }
                return []
            })
        return (answer, Simplification(text: answer.value.text, before: before, after: Readability(answer.value.text)))
    }

    /// What `request` wants, answered from `context`, with the matching context items.
    public func resolve(_ request: String, context: [String]) async throws -> TaskAnswer<Resolution> {
        let listed = context.isEmpty ? "(no context)" : context.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        return try await run(
            .resolve, Resolution.self,
            system: """
                Work out what the user wants (the intent), answer it from the context where the context applies, and list \
                the context items that match as candidates, best first, each with a confidence from 0 to 1.
                """, user: "Context:\n\(listed)\n\nRequest: \(request)")
    }

    /// A mind map of `text`: a topic, two to six branches, their ideas and details.
    public func mindMap(of text: String) async throws -> TaskAnswer<MindMapOutline> {
        try await run(
            .mindMap, MindMapOutline.self,
            system: """
                Make a mind map of the user's text: the central topic, two to six main branches, each with up to four ideas, \
                each idea with up to three details. Every label has one to four words. Use only what the text says.
                """, user: text, maxTokens: 1_024)
    }
}
