import ArgumentParser
import Foundation
import ParleyCore
import ParleyMindMap
import ParleyRuntime
import ParleyData
import ParleyTasks

/// Options the learning-task commands share.
struct TaskOptions: ParsableArguments {
    @Flag(help: "Print JSON: the value, the provider that answered and why.")
    var json = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var model: ModelSelection

    /// Runs `body` with the coordinator for these flags; failures become one sentence on stderr.
    func perform(_ body: (TaskCoordinator<ContinuousClock>) async throws -> Void) async throws {
        common.bootstrapLogging()
        do {
            let runtime = try await common.runtime(smallModel: model.smallModel)
            try await body(try await runtime.taskCoordinator(model.selection))
        } catch {
            throw fail(error)
        }
    }

    /// Prints `answer`: JSON with `extra` members, or `human` text and who answered (to standard error).
    func print<T>(_ answer: TaskAnswer<T>, extra: JSONObject = [:], human: () -> String) {
        if json {
            var object: JSONObject = ["result": answer.result.value]
            for (key, value) in extra { object[key] = value }
            object["provider"] = .string(answer.provider.description)
            object["reason"] = .string(answer.reason)
            emit(JSONValue.object(object).prettyText + "\n")
        } else {
            emit(human() + "\n")
            FileHandle.standardError.write(Data("served by \(answer.provider) (\(answer.reason))\n".utf8))
        }
    }
}

/// Reads a text argument: a file's contents, standard input for `-`, or a saved study
/// material's text for `material:ID` (parley materials list).
func readText(_ path: String) async throws -> String {
    let text: String
    if path == "-" {
        text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    } else if path.hasPrefix("material:") {
        guard let id = Int64(path.dropFirst("material:".count)) else {
            throw ValidationError("Write a material as material:ID, e.g. material:3 (parley materials list shows the ids).")
        }
        let database = try await RuntimeSettings.load().database
        guard FileManager.default.fileExists(atPath: database.path),
            let material = try LocalStore(path: database).material(id)
        else { throw StoreError.materialNotFound(id) }
        text = material.text
    } else {
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
        }
    }
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("\(path == "-" ? "The input" : path) is empty.") }
    return text
}

/// `parley extract`: the entities in a text.
struct Extract: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the people, places, organizations and concepts in a text file.")

    @Argument(help: "The text file (- for standard input, material:ID for a saved study material).")
    var file: String

    @OptionGroup var options: TaskOptions

    func run() async throws {
        let text = try await readText(file)
        try await options.perform { coordinator in
            let answer = try await coordinator.extractEntities(from: text)
            options.print(answer) {
                let value = answer.value
                return [("People", value.people), ("Places", value.places), ("Organizations", value.organizations), ("Concepts", value.concepts)]
                    .map { "\($0.0): \($0.1.isEmpty ? "—" : $0.1.joined(separator: ", "))" }.joined(separator: "\n")
            }
        }
    }
}

/// `parley summarize`: a title, key points and a summary.
struct Summarize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Summarize a text file: a title, key points and a few sentences.")

    @Argument(help: "The text file (- for standard input, material:ID for a saved study material).")
    var file: String

    @OptionGroup var options: TaskOptions

    func run() async throws {
        let text = try await readText(file)
        try await options.perform { coordinator in
            let answer = try await coordinator.summarize(text)
            options.print(answer) {
                let value = answer.value
                return ([value.title, ""] + value.points.map { "• \($0)" } + ["", value.summary]).joined(separator: "\n")
            }
        }
    }
}

/// `parley simplify`: a text rewritten to read more easily, with its readability measured.
struct Simplify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a text file for a reader with dyslexia: short sentences, common words.",
        discussion: "The Flesch–Kincaid grade of the original and of the rewrite are measured; a rewrite that is not easier is refused.")

    @Argument(help: "The text file (- for standard input, material:ID for a saved study material).")
    var file: String

    @OptionGroup var options: TaskOptions

    func run() async throws {
        let text = try await readText(file)
        try await options.perform { coordinator in
            let (answer, simplification) = try await coordinator.simplify(text)
            let grades: JSONObject = [
                "grade_before": .number((simplification.before.grade * 10).rounded() / 10),
                "grade_after": .number((simplification.after.grade * 10).rounded() / 10),
            ]
            options.print(answer, extra: grades) {
                simplification.text + "\n\nReadability: \(simplification.before) → \(simplification.after)"
            }
        }
    }
}

/// `parley breakdown`: a task as small steps.
struct Breakdown: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Break a task into three to seven small steps, with minutes for each.")

    @Argument(help: "The task, e.g. \"write a book report on Charlotte's Web\".")
    var task: String

    @OptionGroup var options: TaskOptions

    func validate() throws {
        guard !task.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("The task is empty.") }
    }

    func run() async throws {
        try await options.perform { coordinator in
            let answer = try await coordinator.breakDown(task)
            options.print(answer) {
                let value = answer.value
                let steps = value.steps.enumerated().map { "\($0.offset + 1). \($0.element.action) (\($0.element.minutes) min)" }
                return ([value.goal, ""] + steps + ["", "About \(value.totalMinutes) minutes in all."]).joined(separator: "\n")
            }
        }
    }
}

/// `parley mindmap`: a mind map of a text, drawn as SVG (and PNG).
struct MindMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mindmap",
        abstract: "Draw a mind map of a text file as an accessible SVG (and a PNG where rsvg-convert is installed).")

    @Argument(help: "The text file (- for standard input, material:ID for a saved study material).")
    var file: String

    @Option(name: .shortAndLong, help: "Where to write the SVG.")
    var output: String = "mindmap.svg"

    @Option(help: "Also write a PNG here (needs rsvg-convert: apt-get install librsvg2-bin).")
    var png: String?

    @Option(help: "The layout's seed: the same text, answer and seed give the same picture.")
    var seed: UInt64 = 1

    @OptionGroup var options: TaskOptions

    func run() async throws {
        let text = try await readText(file)
        try await options.perform { coordinator in
            let answer = try await coordinator.mindMap(of: text)
            let map = answer.value.mindMap
            let svg = MindMapSVG.render(map, options: MindMapLayout.Options(seed: seed))
            try Data(svg.utf8).write(to: URL(fileURLWithPath: output))
            if let png { try await MindMapPNG.convert(svg: svg, to: URL(fileURLWithPath: png)) }
            let written: JSONObject = ["svg": .string(output), "png": png.map(JSONValue.string) ?? .null]
            options.print(answer, extra: written) {
                let lines = map.branches.map { branch in
                    "• \(branch.label)" + (branch.children.isEmpty ? "" : ": " + branch.children.map(\.label).joined(separator: ", "))
                }
                return ([map.title] + lines + ["", "Wrote \(output)" + (png.map { " and \($0)" } ?? "") + "."]).joined(separator: "\n")
            }
        }
    }
}
