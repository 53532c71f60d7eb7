import Foundation
import ParleyCore
import ParleyLocal
import ParleyModels
import ParleyTestLanes
import Testing
@testable import ParleyTasks

/// The tasks on the real on-device engine (SmolLM2-135M, as the suite's other model tests),
/// on one thread so the rest of the suite keeps a core. The mind map is drawn end to end by
/// the `parley mindmap` test.
@Suite("Learning tasks on llama.cpp", .serialized, .onDeviceEngines)
struct LocalTaskTests {
    static let paths = ParleyPaths.current()
    static let model = LlamaLanguageModel(configuration: .init(modelPath: paths.defaultLanguageModel.path, contextLength: 2048, threads: 1))

    func coordinator() throws -> TaskCoordinator<ContinuousClock> {
        guard FileManager.default.fileExists(atPath: Self.paths.defaultLanguageModel.path) else {
            Issue.record("Missing \(Self.paths.defaultLanguageModel.path): run scripts/setup first.")
            throw CancellationError()
        }
        return TaskCoordinator(generator: StructuredGenerator(providers: [Self.model], health: ProviderHealth(clock: ContinuousClock())))
    }

    /// Long sentences of long words that have plain synonyms.
    static let text = """
        Notwithstanding the considerable administrative complications that were encountered during the preliminary \
        consultation period, the municipal authorities ultimately authorized the construction of the community library, \
        which will consequently provide residents with substantially improved educational opportunities.
        """

    @Test("assignments in a teacher's message are named one per sentence, in the sentences' words")
    func assignmentNames() async throws {
        let sentences = ["The essay on the water cycle is due Friday.", "Please hand in the map exercise by December 1 at 5 pm."]
        let answer = try await coordinator().nameAssignments(subject: "Homework for next week", sentences: sentences)
        #expect(answer.value.titles.count == 2)
        #expect(answer.value.titles.allSatisfy { !$0.isEmpty && $0.count <= 80 })
        // At least one name takes a word of four letters or more from its own sentence.
        let shared = zip(answer.value.titles, sentences).filter { title, sentence in
            let words = Set(sentence.lowercased().split { !$0.isLetter }.filter { $0.count >= 4 })
            return title.lowercased().split { !$0.isLetter }.contains { words.contains($0) }
        }
        #expect(!shared.isEmpty, "names: \(answer.value.titles)")
    }

    @Test("a breakdown has three to seven steps, each with minutes in range")
    func breakdown() async throws {
        let answer = try await coordinator().breakDown("clean my bedroom")
        #expect((3...7).contains(answer.value.steps.count))
        #expect(answer.value.steps.allSatisfy { (1...30).contains($0.minutes) && !$0.action.isEmpty })
    }

    /// Simplifying takes more than SmolLM2-135M has (its rewrites keep the long words): this
    /// test runs the machine's default model, as `parley simplify` does.
    @Test("simplification lowers the Flesch–Kincaid grade, on the machine's default model")
    func simplification() async throws {
        let choice = LanguageModelChoice.resolve(setting: nil, folder: Self.paths.models)
        guard FileManager.default.fileExists(atPath: choice.path.path) else {
            Issue.record("Missing \(choice.path.path): run scripts/setup first.")
            return
        }
        let model = LlamaLanguageModel(configuration: .init(modelPath: choice.path.path, contextLength: 2048, threads: 1))
        let coordinator = TaskCoordinator(generator: StructuredGenerator(providers: [model], health: ProviderHealth(clock: ContinuousClock())))
        let (_, simplification) = try await coordinator.simplify(Self.text)
        #expect(simplification.after.grade < simplification.before.grade, "\(simplification.before) → \(simplification.after): \(simplification.text)")
    }
}
