import Foundation
import ParleyCore
import ParleyModels
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// The end-of-turn score of the on-device model, on fixed utterances: whole questions and
/// requests against the same words cut where a speaker pauses to think, each punctuated as
/// Whisper writes it.
@Suite("end of turn from the language model", .serialized, .onDeviceEngines)
struct TurnPredictionTests {
    static let complete = [
        "What is the capital of France?",
        "How many legs does a spider have?",
        "Tell me a joke.",
        "What time is it in London?",
        "Can you set a timer for ten minutes?",
        "Thanks, that's all.",
        "Who wrote Romeo and Juliet?",
        "What's the weather like tomorrow?",
    ]
    /// Cut words as a transcriber writes them: punctuated as if they were whole (the mark
    /// must not decide).
    static let incomplete = [
        "What is the capital of?",
        "How many legs does a?",
        "Tell me a.",
        "What time is it in?",
        "Can you set a timer for?",
        "I was wondering if you could.",
        "Who wrote the?",
        "What's the weather like and?",
        // Openings that read as whole sentences but announce the question still to come.
        "Can you tell me.",
        "I would like to know.",
        "What is the name of?",
        "Could you explain.",
    ]

    static let system = ChatMessage.system("You are a helpful voice assistant. Answer in one or two short sentences.")

    func model(_ path: URL) -> LlamaLanguageModel {
        LlamaLanguageModel(configuration: .init(modelPath: path.path, contextLength: 1024, threads: 1))
    }

    /// The fast preset always; the machine's preset too when setup installed it.
    static var models: [String] {
        ["SmolLM2-135M-Instruct.Q4_1.gguf", "Qwen2.5-Coder-1.5B-Instruct.Q4_K_M.gguf"].filter {
            $0.hasPrefix("SmolLM2") || FileManager.default.fileExists(atPath: TestEnvironment.paths.models.appendingPathComponent($0).path)
        }
    }

    /// A conversation under way, as the benchmark's was when a model scored "I would like to
    /// know." whole (its last reply cut off by the user).
    static let conversation: [ChatMessage] = [
        system, .user("Hello there."), .assistant("Hello! How can I assist you today?"),
        .user("What is the capital of France?"), .assistant("The capital of France is Paris."),
        .user("But mainly at dot s by dot arm."),
        .assistant("I apologize, but I'm not sure what you're asking. Could you please provide more context or"),
    ]

    @Test("whole utterances score above cut ones; the policy's threshold tells them apart", arguments: models, [false, true])
    func separates(file: String, underWay: Bool) async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.models.appendingPathComponent(file))
        let llm = model(path)
        let history = underWay ? Self.conversation : [Self.system]
        var whole: [Double] = [], cut: [Double] = []
        for text in Self.complete { whole.append(try await llm.completion(of: text, after: history)) }
        for text in Self.incomplete { cut.append(try await llm.completion(of: text, after: history)) }
        print(
            "end-of-turn scores, \(path.lastPathComponent)\(underWay ? " in a conversation" : ""): whole \(whole.map { String(format: "%.4f", $0) }), cut \(cut.map { String(format: "%.4f", $0) })"
        )
        // The share of (whole, cut) pairs ordered right (the area under the ROC curve).
        let pairs = whole.flatMap { w in cut.map { c in w > c ? 1.0 : (w == c ? 0.5 : 0) } }
        let auc = pairs.reduce(0, +) / Double(pairs.count)
        // The model's own threshold, as the runtime gives it from the catalog.
        let threshold = ModelCatalog.standard.models.first { $0.files.contains { $0.name == file } }?.quirks.endOfTurnThreshold
        let policy = TurnPolicy().with(threshold: threshold)
        let right =
            whole.filter { policy.decide(silence: 0.5, completion: $0).endsTurn }.count
            + cut.filter { !policy.decide(silence: 0.5, completion: $0).endsTurn }.count
        print(String(format: "AUC %.2f; decisions right at 0.5 s of silence: %d of %d", auc, right, whole.count + cut.count))
        #expect(auc >= 0.95)
        // A model measured for its own threshold decides every one of them right.
        #expect(right >= whole.count + cut.count - (threshold == nil ? 2 : 0))
    }

    @Test("the final mark of a transcript is not read: a cut question scores as low with its '?' as without")
    func punctuationIgnored() async throws {
        let llm = model(try TestEnvironment.require(TestEnvironment.paths.models.appendingPathComponent(Self.models[0])))
        let marked = try await llm.completion(of: "Who wrote the?", after: [Self.system])
        let bare = try await llm.completion(of: "Who wrote the", after: [Self.system])
        #expect(marked == bare)
        #expect(LlamaLanguageModel.withoutFinalPunctuation(" Is it \"done?\" … ") == "Is it \"done")
        #expect(LlamaLanguageModel.withoutFinalPunctuation("3.5") == "3.5")
    }
}
