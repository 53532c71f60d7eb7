import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyTasks

@Suite("Readability")
struct ReadabilityTests {
    @Test("counts sentences, words and syllables")
    func counts() {
        let measured = Readability("The cat sat on the mat. It was happy! Was it? Yes")
        #expect(measured.sentences == 4)
        #expect(measured.words == 12)
        #expect(Readability.syllables(in: "cat") == 1)
        #expect(Readability.syllables(in: "happy") == 2)
        #expect(Readability.syllables(in: "photosynthesis") == 5)
        #expect(Readability.syllables(in: "table") == 2)
        #expect(Readability.syllables(in: "made") == 1)
        #expect(Readability.syllables(in: "jumped") == 1)
        #expect(Readability.syllables(in: "wanted") == 2)
    }

    @Test("long sentences of long words read at a higher grade than short plain ones")
    func grades() {
        let hard = Readability(
            "Photosynthesis is the biochemical process by which chlorophyll-containing organisms transform electromagnetic radiation into chemically stored energy, subsequently utilized for metabolic activities."
        )
        let easy = Readability("Plants use light to make food. The food gives them energy. They let out air we breathe.")
        #expect(hard.grade > 16)
        #expect(easy.grade < 4)
        #expect(Readability("").grade == 0)
    }
}

@Suite("Task policy")
struct TaskPolicyTests {
    static let local = ScriptedLanguageModel(name: "llama.cpp", replies: [])
    static let openAI = ScriptedLanguageModel(name: "openai", replies: [])
    static let ollama = ScriptedLanguageModel(name: "ollama", replies: [])

    @Test("each task orders providers by its preference, unlisted ones last, missing ones named")
    func order() {
        let providers: [any LanguageModelProvider] = [Self.local, Self.ollama, Self.openAI]
        let mindMap = TaskPolicy.standard.order(for: .mindMap, among: providers)
        #expect(mindMap.providers.map(\.identity.name) == ["openai", "llama.cpp", "ollama"])
        #expect(mindMap.rules == ["mind_map prefers anthropic → openai → on-device (not configured: anthropic), then ollama"])
        let simplification = TaskPolicy.standard.order(for: .simplification, among: providers)
        #expect(simplification.providers.map(\.identity.name) == ["llama.cpp", "ollama", "openai"])
    }

    @Test("PARLEY_TASK_ORDER replaces the orders it names")
    func parsing() throws {
        let policy = try TaskPolicy(parsing: "mind_map = ollama, on-device; simplification=openai")
        #expect(policy.orders[.mindMap] == ["ollama", "on-device"])
        #expect(policy.orders[.simplification] == ["openai"])
        #expect(policy.orders[.taskBreakdown] == TaskPolicy.standard.orders[.taskBreakdown])
        #expect(throws: TaskPolicyError.self) { try TaskPolicy(parsing: "mindmap=openai") }
        #expect(throws: TaskPolicyError.self) { try TaskPolicy(parsing: "summary=") }
    }
}

@Suite("Task coordinator (orchestration, with scripted models)")
struct TaskCoordinatorTests {
    static func coordinator(_ providers: [any LanguageModelProvider], policy: TaskPolicy = .standard) -> TaskCoordinator<ContinuousClock> {
        TaskCoordinator(generator: StructuredGenerator(providers: providers, health: ProviderHealth(clock: ContinuousClock())), policy: policy)
    }

    static let structured = LanguageModelCapabilities(jsonSchema: true)

    @Test("a breakdown is typed, and the answer says who served and why")
    func breakdown() async throws {
        let reply =
            #"{"goal": "Tidy the room", "steps": [{"action": "Pick up clothes", "minutes": 5}, {"action": "Clear the desk", "minutes": 10}, {"action": "Vacuum", "minutes": 8}]}"#
        let local = ScriptedLanguageModel(name: "llama.cpp", replies: [[reply]], capabilities: Self.structured)
        let answer = try await Self.coordinator([local]).breakDown("tidy my room")
        #expect(answer.value.steps.count == 3)
        #expect(answer.value.totalMinutes == 23)
        #expect(answer.provider.name == "llama.cpp")
        #expect(answer.reason.contains("task_breakdown prefers anthropic → openai → on-device"))
        let request = try #require(await local.requests.first)
        #expect(request.task == .taskBreakdown)
        #expect(request.responseSchema?.name == "task_breakdown")
    }

    @Test("a breakdown with too few steps is repaired by the schema check")
    func breakdownRepair() async throws {
        let short = #"{"goal": "Tidy", "steps": [{"action": "Do it all", "minutes": 30}]}"#
        let good = #"{"goal": "Tidy", "steps": [{"action": "Clothes", "minutes": 5}, {"action": "Desk", "minutes": 5}, {"action": "Floor", "minutes": 5}]}"#
        let local = ScriptedLanguageModel(name: "llama.cpp", replies: [[short], [good]], capabilities: Self.structured)
        let answer = try await Self.coordinator([local]).breakDown("tidy my room")
        #expect(answer.result.repaired)
        #expect(answer.value.steps.count == 3)
    }

    @Test("a simplification that is not easier to read is refused, and the next provider's is used")
    func simplificationMustGetEasier() async throws {
        let original = "Notwithstanding considerable administrative complications, the municipality ultimately authorized construction."
        let same = #"{"text": "Notwithstanding considerable administrative complications, the municipality ultimately authorized construction."}"#
        let simpler = #"{"text": "There were many problems. In the end, the town said yes to the building."}"#
        let stubborn = ScriptedLanguageModel(name: "llama.cpp", replies: [[same]], capabilities: Self.structured)
        let helpful = ScriptedLanguageModel(name: "anthropic", replies: [[simpler]], capabilities: Self.structured)
        let (answer, simplification) = try await Self.coordinator([stubborn, helpful]).simplify(original)
        #expect(answer.provider.name == "anthropic")
        #expect(simplification.after.grade < simplification.before.grade)
        #expect(await stubborn.requests.count == 2, "one answer and one repair round")
        let repair = try #require(await stubborn.requests.last?.messages.last?.text)
        #expect(repair.contains("no easier than the original"))
    }

    /// A cloud provider double: it must never be asked.
    struct Cloud: LanguageModelProvider {
        let identity = ProviderIdentity(name: "openai", model: "gpt-test", isLocal: false)
        let capabilities = LanguageModelCapabilities(jsonSchema: true)
        func availability() async -> Availability { .ready }
        func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
            AsyncThrowingStream { $0.finish(throwing: ProviderError.invalidInput("a private request reached the cloud")) }
        }
    }

    @Test("private tasks stay on the machine")
    func privateTasks() async throws {
        let empty = #"{"people":[],"places":[],"organizations":[],"concepts":[]}"#
        let local = ScriptedLanguageModel(name: "llama.cpp", replies: [[empty]], capabilities: Self.structured)
        let answer = try await Self.coordinator([Cloud(), local]).run(
            .entityExtraction, Entities.self, system: "Extract.",
            user: "My secret diary.", isPrivate: true)
        #expect(answer.provider.name == "llama.cpp")
        #expect(answer.reason.contains("openai (gpt-test): the request is private and stays on this machine"))
    }
}
