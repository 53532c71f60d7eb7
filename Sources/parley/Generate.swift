import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley generate`: one JSON value that follows a schema.
struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print one JSON value, valid against a JSON schema, answering PROMPT.",
        discussion: """
            Offline, the on-device model is constrained by a grammar made from the schema; other providers get the \
            schema natively. Every answer is validated; an invalid one is sent back once for repair, then the next \
            provider is tried. Which provider answered, and why, goes to standard error.
            """)

    @Option(help: "The JSON schema file the value must follow.")
    var schema: String

    @Argument(help: "What to produce; read from standard input when omitted.")
    var prompt: String?

    @Option(name: .customLong("system-prompt"), help: "Instructions for the model (the schema instruction is added).")
    var systemPrompt: String = "You produce accurate, concise structured data."

    @Option(name: .customLong("max-tokens"), help: "The most tokens the JSON may take.")
    var maxTokens: Int = 768

    @Option(help: "Sampling temperature.")
    var temperature: Double = 0.1

    @Flag(help: "Print the value on one line instead of indented.")
    var compact = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var model: ModelSelection

    func validate() throws {
        guard maxTokens > 0 else { throw ValidationError("--max-tokens must be at least 1.") }
        guard temperature >= 0 else { throw ValidationError("--temperature cannot be negative.") }
    }

    func run() async throws {
        common.bootstrapLogging()
        let schemaText: String
        do {
            schemaText = try String(contentsOfFile: schema, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read the schema file \(schema): \(error.localizedDescription)")
        }
        let parsed: JSONSchema
        do {
            parsed = try JSONSchema(parsing: schemaText)
        } catch {
            throw ValidationError("\(schema): \(error)")
        }
        let task = prompt ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        guard !task.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("The prompt is empty.") }
        do {
            let runtime = try await common.runtime(smallModel: model.smallModel)
            let generator = try await runtime.structuredGenerator(model.selection)
            let name = URL(fileURLWithPath: schema).deletingPathExtension().lastPathComponent
            let request = StructuredRequest(
                messages: [.system(systemPrompt), .user(task)], schema: parsed, name: name,
                sampling: SamplingOptions(temperature: temperature, maxTokens: maxTokens))
            let result = try await generator.generate(request)
            emit((compact ? result.value.text : result.value.prettyText) + "\n")
            let note = result.repaired ? ", after a repair round" : ""
            FileHandle.standardError.write(Data("served by \(result.provider)\(note) (\(result.reason))\n".utf8))
        } catch {
            throw fail(error)
        }
    }
}
