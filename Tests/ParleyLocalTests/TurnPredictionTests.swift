import Foundation
import ParleyCore
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

    @Test("whole utterances score above cut ones; the policy's threshold tells them apart", arguments: models)
    func separates(file: String) async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.models.appendingPathComponent(file))
        let llm = model(path)
        var whole: [Double] = [], cut: [Double] = []
        for text in Self.complete { whole.append(try await llm.completion(of: text, after: [Self.system])) }
        for text in Self.incomplete { cut.append(try await llm.completion(of: text, after: [Self.system])) }
        print("end-of-turn scores, \(path.lastPathComponent): whole \(whole.map { String(format: "%.3f", $0) }), cut \(cut.map { String(format: "%.3f", $0) })")
        // The share of (whole, cut) pairs ordered right (the area under the ROC curve).
        let pairs = whole.flatMap { w in cut.map { c in w > c ? 1.0 : (w == c ? 0.5 : 0) } }
        let auc = pairs.reduce(0, +) / Double(pairs.count)
        let policy = TurnPolicy()
        let right = whole.filter { policy.decide(silence: 0.5, completion: $0).endsTurn }.count
            + cut.filter { !policy.decide(silence: 0.5, completion: $0).endsTurn }.count
        print(String(format: "AUC %.2f; decisions right at 0.5 s of silence: %d of %d", auc, right, whole.count + cut.count))
        #expect(auc >= 0.95)
        #expect(right >= 15)
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
