import ArgumentParser
import Foundation
import ParleyCore
#if Server
import ParleyMCP
#endif
import ParleyRuntime

/// `parley chat`: text in, text out.
struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat with the language model: one answer to PROMPT, or a conversation on standard input without it.",
        discussion: """
            The built-in tools (parley tools) are on: the model may search your study materials, read your upcoming \
            assignments and the date. --tools FILE.json adds your own tools (OpenAI's format: a JSON array of \
            {"type": "function", "function": {"name", "description", "parameters"}}); when the model calls one of them, \
            the calls are printed as JSON ({"tool_calls": [{"id", "name", "arguments"}]}) for you to run, and the \
            command ends.
            """)

    @Argument(help: "The prompt; omit it for an interactive conversation (end it with an empty line or Ctrl-D).")
    var prompt: String?

    @Option(name: .customLong("system-prompt"), help: "The assistant's instructions (default: a helpful assistant's, in --language's words).")
    var systemPrompt: String?

    @Option(name: .customLong("max-tokens"), help: "The longest answer in tokens.")
    var maxTokens: Int = 256

    @Option(help: "Sampling temperature; 0 always picks the likeliest token.")
    var temperature: Double = 0

    @Option(help: "A JSON file of tools the model may call, in OpenAI's format; their calls are printed, not run.")
    var tools: String?

    @Option(name: .customLong("tool-choice"), help: "auto, none, required, or the name of the function to call.")
    var toolChoice: String = "auto"

    @Flag(name: .customLong("no-builtin-tools"), help: "Offer none of the built-in tools.")
    var noBuiltinTools = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var spoken: LanguageOption
    @OptionGroup var model: ModelSelection
    @OptionGroup var mcp: MCPOptions

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
            let declared = try tools.map(Self.readTools) ?? []
            let hub = try await mcp.connect()
            let runtime = try await common.runtime(smallModel: model.smallModel, tools: hub?.runtimeTools ?? [])
            let builtIns = try await runtime.toolbox(owner: .local, builtIns: !noBuiltinTools, warn: false, language: spoken.setting)
            let choice = try Self.choice(toolChoice, among: ToolBox.merged(declared, builtIns.definitions))
            let llm = try await runtime.languageModel(model.selection)
            try await ensureReady([llm])
            let loop = ToolLoop(llm: llm, toolbox: builtIns)
            let sampling = SamplingOptions(temperature: temperature, maxTokens: maxTokens)
            let instructions = try systemPrompt ?? spoken.setting.map(LocalizedPhrases.chatPrompt) ?? "You are a helpful assistant."
            var history: [ChatMessage] = [.system(instructions)]
            func ask() async throws -> Bool {
                let request = ChatRequest(messages: history, sampling: sampling, tools: declared, toolChoice: choice)
                let outcome = try await loop.run(request, clock: ContinuousClock()) { event in
                    if case .text(let piece) = event { emit(piece) }
                }
                for result in outcome.results {
                    note("[tool] \(result.call.name)(\(result.call.arguments)) → \(result.isError ? "error: " : "")\(result.content.prefix(200))")
                }
                history += outcome.exchange
                guard outcome.reply.toolCalls.isEmpty else {
                    // Calls to the caller's tools: printed for the caller to run.
                    if !outcome.reply.text.isEmpty { emit("\n") }
                    emit(try Self.callsJSON(outcome.reply.toolCalls) + "\n")
                    return false
                }
                emit("\n")
                history.append(.assistant(outcome.reply.text))
                return true
            }
            if let prompt {
                history.append(.user(prompt))
                _ = try await ask()
                return
            }
            let interactive = isatty(STDIN_FILENO) != 0
            while true {
                if interactive { emit("> ") }
                guard let line = readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else { break }
                history.append(.user(line))
                guard try await ask() else { break }
            }
        } catch {
            throw fail(error)
        }
    }

    /// The tools in `path`: a JSON array of OpenAI-style tools, or an object with `tools`.
    static func readTools(_ path: String) throws -> [ToolDefinition] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read the tools file \(path).") }
        let value: JSONValue
        do { value = try JSONValue(parsing: data) } catch { throw ValidationError("\(path) is not JSON: \(error)") }
        guard let list = value.array ?? value["tools"]?.array else {
            throw ValidationError("\(path) must hold a JSON array of tools (or {\"tools\": [...]}).")
        }
        do {
            return try ToolDefinition.openAI(list)
        } catch {
            throw ValidationError("Tool \(error.index + 1) in \(path): \(error)")
        }
    }

    /// `--tool-choice` read against the tools on offer.
    static func choice(_ text: String, among tools: [ToolDefinition]) throws -> ToolChoice {
        switch text {
        case "auto": return .auto
        case "none": return .none
        case "required": return .required
        default:
            guard tools.contains(where: { $0.name == text }) else {
                throw ValidationError("--tool-choice \(text) names no tool on offer (\(tools.map(\.name).joined(separator: ", "))).")
            }
            return .function(text)
        }
    }

    /// `{"tool_calls": [{"id", "name", "arguments"}]}`, the arguments as JSON.
    static func callsJSON(_ calls: [ToolCall]) throws -> String {
        let items: [JSONValue] = calls.map { call in
            ["id": .string(call.id), "name": .string(call.name), "arguments": call.parsedArguments ?? .string(call.arguments)]
        }
        return JSONValue.object(["tool_calls": .array(items)]).text
    }
}

/// `parley tools`: the built-in tools the model may call.
struct Tools: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the built-in tools the assistant may call (on in talk, chat, the server's conversations and the page), and with --mcp those of MCP servers.")

    @Flag(help: "Print the tools as JSON, in OpenAI's tool format.")
    var json = false

    @OptionGroup var mcp: MCPOptions

    func run() async throws {
        if mcp.configuration != nil { CommonOptions.bootstrapWarnings() }
        let hub: MCPToolHub?
        do { hub = try await mcp.connect() } catch { throw fail(error) }
        let definitions = BuiltInTools.definitions() + (hub?.runtimeTools.map(\.definition) ?? [])
        await hub?.close()
        if json {
            let items: [JSONValue] = definitions.map { tool in
                [
                    "type": "function",
                    "function": [
                        "name": .string(tool.name), "description": .string(tool.description ?? ""),
                        "parameters": tool.parameters,
                    ],
                ]
            }
            print(JSONValue.array(items).prettyText)
            return
        }
        for tool in definitions {
            let parameters = tool.parameters["properties"]?.object?.map(\.0).joined(separator: ", ") ?? ""
            print("\(tool.name)(\(parameters))")
            print("    \(tool.description ?? "")")
        }
    }
}
