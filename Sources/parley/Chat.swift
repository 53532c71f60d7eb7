import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley chat`: text in, text out.
struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat with the language model: one answer to PROMPT, or a conversation on standard input without it.")

    @Argument(help: "The prompt; omit it for an interactive conversation (end it with an empty line or Ctrl-D).")
    var prompt: String?

    @Option(name: .customLong("system-prompt"), help: "The assistant's instructions.")
    var systemPrompt: String = "You are a helpful assistant."

    @Option(name: .customLong("max-tokens"), help: "The longest answer in tokens.")
    var maxTokens: Int = 256

    @Option(help: "Sampling temperature; 0 always picks the likeliest token.")
    var temperature: Double = 0

    @OptionGroup var common: CommonOptions
    @OptionGroup var model: ModelSelection

    func validate() throws {
        guard maxTokens > 0 else { throw ValidationError("--max-tokens must be at least 1.") }
        guard temperature >= 0 else { throw ValidationError("--temperature cannot be negative.") }
        if let prompt, prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("The prompt is empty.")
        }
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let runtime = try await common.runtime(smallModel: model.smallModel)
            let llm = try await runtime.languageModel(model.selection)
            try await ensureReady([llm])
            let sampling = SamplingOptions(temperature: temperature, maxTokens: maxTokens)
            var history: [ChatMessage] = [.system(systemPrompt)]
            if let prompt {
                history.append(.user(prompt))
                _ = try await stream(ChatRequest(messages: history, sampling: sampling), to: llm)
                return
            }
            let interactive = isatty(STDIN_FILENO) != 0
            while true {
                if interactive { emit("> ") }
                guard let line = readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else { break }
                history.append(.user(line))
                let reply = try await stream(ChatRequest(messages: history, sampling: sampling), to: llm)
                history.append(.assistant(reply))
            }
        } catch {
            throw fail(error)
        }
    }

    /// Prints the reply as it streams and returns it.
    private func stream(_ request: ChatRequest, to llm: any LanguageModelProvider) async throws -> String {
        var reply = ""
        for try await event in llm.complete(request) {
            if case .text(let piece) = event {
                reply += piece
                emit(piece)
            }
        }
        emit("\n")
        return reply
    }
}
