import ArgumentParser
import Foundation
import ParleyCore
import ParleyMaterials
import ParleyRuntime
import ParleyData

/// `parley ask`: one question, optionally about images or study materials, one answer.
struct Ask: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask one question, about images (--image) or saved study materials (--material) if given.",
        discussion: """
            Images (PNG, JPEG or WebP, up to 20 MB) go to a provider that can see them (OpenAI, \
            Anthropic, an Ollama vision model; the order is PARLEY_TASK_ORDER's vision=…). With none \
            configured or reachable, their text is read on this machine by Tesseract and the question \
            is answered from that text, with a warning saying so.
            """)

    @Argument(help: "The question.")
    var question: String

    @Option(name: .customLong("image"), help: "An image the question is about (repeat for several).")
    var images: [String] = []

    @Option(name: .customLong("material"), help: "A saved study material (parley materials list) the question is about (repeat for several).")
    var materials: [Int64] = []

    @Option(name: .customLong("system-prompt"), help: "The assistant's instructions.")
    var systemPrompt: String = "You are a helpful assistant. Answer briefly and plainly."

    @Option(name: .customLong("max-tokens"), help: "The longest answer in tokens.")
    var maxTokens: Int = 256

    @Option(help: "The conversation database the materials are in (default: PARLEY_DATABASE, else parley.sqlite in the data directory).")
    var database: String?

    @Flag(help: "Print the answer and who gave it as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var model: ModelSelection

    func validate() throws {
        guard maxTokens > 0 else { throw ValidationError("--max-tokens must be at least 1.") }
        guard !question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("The question is empty.") }
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            // Every image is read and checked before anything loads.
            var parts: [ChatMessage.Part] = []
            for path in images { parts.append(try ImageAttachment.read(path: path).part) }
            let runtime = try await common.runtime(smallModel: model.smallModel, database: database)
            var context: [String] = []
            if !materials.isEmpty {
                let store = try await runtime.store()
                for id in materials {
                    guard let material = try await store.material(id, owner: .local) else { throw StoreError.materialNotFound(id) }
                    context.append(
                        MaterialContext.excerpt(
                            of: material, budget: MaterialContext.characterBudget(tokens: runtime.options.engines.contextLength, materials: materials.count)))
                }
            }
            let llm = try await runtime.languageModel(model.selection)
            if images.isEmpty { try await ensureReady([llm]) }
            let text = context.isEmpty ? question : context.joined(separator: "\n\n") + "\n\nQuestion: \(question)"
            let request = ChatRequest(
                messages: [.system(systemPrompt), ChatMessage(role: .user, parts: parts + [.text(text)])],
                sampling: SamplingOptions(temperature: 0, maxTokens: maxTokens), task: parts.isEmpty ? .conversation : .vision)
            var answer = ""
            var provider = llm.identity
            for try await event in llm.complete(request) {
                switch event {
                case .text(let piece):
                    answer += piece
                    if !json { emit(piece) }
                case .provider(let identity): provider = identity
                case .finished, .toolCall, .toolCallDelta: break
                }
            }
            if json {
                let document: JSONValue = [
                    "answer": .string(answer.trimmingCharacters(in: .whitespacesAndNewlines)), "provider": .string(provider.description),
                ]
                print(document.text)
            } else {
                emit("\n")
            }
        } catch {
            throw fail(error)
        }
    }
}
