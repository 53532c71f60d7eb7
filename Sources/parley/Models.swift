import ArgumentParser
import Foundation
import ParleyCore
import ParleyModels
import ParleyRuntime

/// `parley models`: the catalog, downloads, verification and the model in use.
struct Models: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, pull, verify, remove and choose models.",
        subcommands: [List.self, Pull.self, Verify.self, Remove.self, Use.self],
        defaultSubcommand: List.self
    )

    /// The library over the settings' data directory, and the language model they choose.
    static func context() async throws -> (library: ModelLibrary, choice: LanguageModelChoice, settings: RuntimeSettings) {
        let settings = try await RuntimeSettings.load()
        let library = ModelLibrary(
            folder: settings.paths.models, index: .current(environment: settings.values),
            hub: .current(environment: settings.values), mirror: ModelLibrary.mirror(environment: settings.values))
        let choice = LanguageModelChoice.resolve(setting: settings.value("PARLEY_LLM_MODEL"), folder: settings.paths.models)
        return (library, choice, settings)
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the catalog: installed or not, preset, size, licence, and the model in use.")

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            do {
                let (library, choice, settings) = try await Models.context()
                let rows = library.catalog.models.map { model in
                    ModelRow(
                        model: model, state: library.state(of: model), inUse: choice.model?.id == model.id && choice.path == library.path(of: model),
                        sources: model.files.map { library.sources(of: $0).map(\.description) })
                }
                let others = library.otherFiles()
                if json {
                    let document = ModelListDocument(
                        models: rows.map(\.document), otherFiles: others.map(\.path),
                        languageModel: .init(path: choice.path.path, id: choice.model?.id, reason: choice.reason),
                        recommendedPreset: MachineProfile.current().recommendedPreset().rawValue)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    print(String(decoding: try encoder.encode(document), as: UTF8.self))
                    return
                }
                // The ears the settings or the machine choose (ParleyModels' SpeechModelChoice).
                let ears = SpeechModelChoice.resolve(setting: settings.value("PARLEY_STT_MODEL"), folder: library.folder, catalog: library.catalog)
                let width = max(20, (rows.map(\.model.id.count).max() ?? 0) + 2)
                print(pad("ID", width) + pad("KIND", 6) + pad("PRESET", 10) + pad("SIZE", 10) + pad("STATE", 22) + "LICENCE")
                for row in rows {
                    let hears = ears.model?.id == row.model.id && ears.path == library.path(of: row.model)
                    let marker = row.inUse || hears ? "  ← in use" : ""
                    print(
                        pad(row.model.id, width) + pad(row.model.capability.rawValue, 6) + pad(row.model.preset?.rawValue ?? "-", 10)
                            + pad(ByteFormat.string(row.model.size), 10) + pad(row.stateText, 22) + row.model.licence + marker)
                }
                for file in others { print("other file: \(file.path)") }
                print("\nLanguage model: \(choice.path.lastPathComponent) — \(choice.reason).")
                print("Ears: \(ears.model?.id ?? ears.path.lastPathComponent) — \(ears.reason).")
                print("Models folder: \(library.folder.path)")
            } catch {
                throw fail(error)
            }
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
    }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a catalog model (resuming, verified), any GGUF from the Hugging Face hub, or any file by URL.",
            discussion: """
                parley models pull qwen2.5-coder-1.5b
                parley models pull hf.co/OWNER/REPO[:QUANT]      (the file of that quantization, Q4_K_M by default)
                parley models pull hf.co/OWNER/REPO/FILE.gguf
                parley models pull --url https://host/model.gguf --sha256 HEX [--name NAME]
                HF_TOKEN is sent for gated repositories; HF_ENDPOINT points at a hub mirror; PARLEY_MODEL_MIRROR at a folder of catalog files.
                """)

        @Argument(help: "The catalog id of the model (see `parley models list`), or hf.co/OWNER/REPO[:QUANT] or hf.co/OWNER/REPO/FILE.gguf.")
        var id: String?

        @Option(help: "Download this URL instead of a catalog model.")
        var url: String?

        @Option(help: "The SHA-256 the file at --url must have.")
        var sha256: String?

        @Option(help: "The file name in the models folder (default: the URL's last part).")
        var name: String?

        @Flag(
            help: "Pull the language model the settings name, else the preset this machine affords (even when a smaller one is installed and in use meanwhile)."
        )
        var chosen = false

        @Flag(name: .shortAndLong, help: "Print nothing but errors.")
        var quiet = false

        func validate() throws {
            let ways = [id != nil, url != nil, chosen].filter { $0 }.count
            guard ways == 1 else { throw ValidationError("Give a model id, --url URL --sha256 HEX, or --chosen.") }
            if url != nil {
                guard let sha256, sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else {
                    throw ValidationError("--url needs --sha256 with the file's 64-hex-digit SHA-256.")
                }
                guard let parsed = url.flatMap(URL.init(string:)), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
                    throw ValidationError("--url must be an http or https URL.")
                }
            } else if sha256 != nil || name != nil {
                throw ValidationError("--sha256 and --name go with --url.")
            }
            if let id, id.lowercased().hasPrefix("hf.co/") || id.lowercased().contains("huggingface.co/"), HubReference(id) == nil {
                throw ValidationError("\(id) is not a hub reference: give hf.co/OWNER/REPO, hf.co/OWNER/REPO:QUANT or hf.co/OWNER/REPO/FILE.gguf.")
            }
        }

        func run() async throws {
            do {
                let (library, choice, settings) = try await Models.context()
                let bar = ProgressBar(quiet: quiet)
                if let url, let sha256, let parsed = URL(string: url) {
                    let file = try await library.pull(url: parsed, sha256: sha256, name: name, progress: bar.handler)
                    bar.finish("\(file.path) verified")
                    return
                }
                if let id, let reference = HubReference(id) {
                    let pulled = try await library.pull(reference, progress: bar.handler)
                    let commit = pulled.commit.map { " at \($0.prefix(12))" } ?? ""
                    bar.finish("\(pulled.file.path) verified (SHA-256 \(pulled.sha256), hf.co/\(pulled.source.repository)/\(pulled.source.file)\(commit))")
                    return
                }
                let model: CatalogModel
                if chosen {
                    guard let picked = LanguageModelChoice.wanted(setting: settings.value("PARLEY_LLM_MODEL"), catalog: library.catalog) else {
                        throw ValidationError("The settings name a file (\(choice.path.path)), not a catalog model; pull it with --url.")
                    }
                    model = picked
                } else {
                    model = try library.model(id ?? "")
                }
                let files = try await library.pull(model, progress: bar.handler)
                bar.finish("\(model.id): \(files.map(\.lastPathComponent).joined(separator: ", ")) verified")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Read installed models and check their SHA-256 against the catalog.")

        @Argument(help: "Model ids (default: every installed one).")
        var ids: [String] = []

        func run() async throws {
            do {
                let (library, _, _) = try await Models.context()
                var models = library.catalog.models.filter { library.state(of: $0) == .installed }
                if !ids.isEmpty {
                    models = []
                    for id in ids { models.append(try library.model(id)) }
                }
                var bad = 0
                for model in models {
                    for check in library.verify(model) {
                        if let problem = check.problem {
                            bad += 1
                            print("\(model.id): \(check.name): \(problem)")
                        } else {
                            print("\(model.id): \(check.name): ok")
                        }
                    }
                }
                if bad > 0 {
                    FileHandle.standardError.write(Data("error: \(bad) file(s) are not as the catalog says; pull them again.\n".utf8))
                    throw ExitCode(1)
                }
            } catch let error as ExitCode {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a model's files (and any partial download).")

        @Argument(help: "The model id.")
        var id: String

        func run() async throws {
            do {
                let (library, choice, _) = try await Models.context()
                let model = try library.model(id)
                let freed = try await library.remove(model)
                print(freed > 0 ? "Removed \(model.id) (\(ByteFormat.string(freed)) freed)." : "\(model.id) was not installed.")
                if choice.model?.id == model.id {
                    print("It was the language model in use; `parley models use ID` picks another, or the next run picks the best one installed.")
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a language model the one in use (written to the settings file as PARLEY_LLM_MODEL).")

        @Argument(help: "A catalog id, or `auto` to let the machine choose again.")
        var id: String

        func run() async throws {
            do {
                let (library, _, settings) = try await Models.context()
                var value: String?
                if id != "auto" {
                    let model = try library.model(id)
                    guard model.capability == .llm else {
                        throw ValidationError("\(model.id) is a \(model.capability.rawValue) model; `use` chooses the language model.")
                    }
                    value = model.id
                    if library.state(of: model) != .installed {
                        print("Note: \(model.id) is not installed yet; run `parley models pull \(model.id)`.")
                    }
                }
                try SettingsFile.set(["parley", "llm", "model"], to: value, in: settings.file)
                print(value.map { "Language model: \($0) (in \(settings.file.path))." } ?? "Language model: chosen by the machine again.")
                if ProcessInfo.processInfo.environment["PARLEY_LLM_MODEL"].map({ !$0.isEmpty }) == true {
                    print("Note: PARLEY_LLM_MODEL is set in the environment, and wins over the settings file.")
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }
}

/// One line of `models list`.
struct ModelRow {
    var model: CatalogModel
    var state: InstallState
    var inUse: Bool
    /// Each file's sources in the order a pull tries them (`PARLEY_MODEL_MIRROR` last).
    var sources: [[String]]

    var stateText: String {
        switch state {
        case .installed: "installed"
        case .partial(let bytes): "partial (\(ByteFormat.string(bytes)))"
        case .missing: model.isDownloadable ? "available" : "made by setup"
        }
    }

    var document: ModelListDocument.Model {
        ModelListDocument.Model(
            id: model.id, name: model.displayName, capability: model.capability.rawValue, preset: model.preset?.rawValue,
            size: model.size, licence: model.licence, state: stateText, inUse: inUse,
            memory: model.memory, contextLength: model.contextLength, files: model.files.map(\.name),
            sources: sources)
    }
}

/// `models list --json`.
struct ModelListDocument: Encodable {
    struct Model: Encodable {
        var id, name, capability: String
        var preset: String?
        var size: Int64
        var licence, state: String
        var inUse: Bool
        var memory: Int64
        var contextLength: Int?
        var files: [String]
        /// Each file's sources, in the order they are tried.
        var sources: [[String]]

        enum CodingKeys: String, CodingKey {
            case id, name, capability, preset, size, licence, state, memory, files, sources
            case inUse = "in_use"
            case contextLength = "context_length"
        }
    }

    struct Choice: Encodable {
        var path: String
        var id: String?
        var reason: String
    }

    var models: [Model]
    var otherFiles: [String]
    var languageModel: Choice
    var recommendedPreset: String

    enum CodingKeys: String, CodingKey {
        case models
        case otherFiles = "other_files"
        case languageModel = "language_model"
        case recommendedPreset = "recommended_preset"
    }
}

/// Writes one key of the JSON settings file, keeping the rest.
enum SettingsFile {
    static func set(_ path: [String], to value: String?, in file: URL) throws {
        var root: [String: Any] = [:]
        if FileManager.default.fileExists(atPath: file.path) {
            let data = try Data(contentsOf: file)
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ValidationError("The settings file \(file.path) is not a JSON object; fix it or remove it.")
            }
            root = object
        }
        func apply(_ object: [String: Any], _ keys: ArraySlice<String>) -> [String: Any] {
            var object = object
            guard let key = keys.first else { return object }
            if keys.count == 1 {
                object[key] = value
            } else {
                let child = apply(object[key] as? [String: Any] ?? [:], keys.dropFirst())
                object[key] = child.isEmpty ? nil : child
            }
            return object
        }
        root = apply(root, path[...])
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: file, options: .atomic)
    }
}
