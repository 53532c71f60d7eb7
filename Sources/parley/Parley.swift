import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyRuntime

/// The `parley` command: voice assistant engine on this machine.
@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A voice-first assistant engine that works offline.",
        subcommands: [
            Talk.self, Transcribe.self, Speak.self, Chat.self, Tools.self, Ask.self, Materials.self, Google.self, Assignments.self, Generate.self, Extract.self,
            Summarize.self, Simplify.self, Breakdown.self, MindMapCommand.self, Compare.self,
        ] + serverCommands + [History.self, StoreCommand.self, Models.self, Doctor.self, Bench.self]
    )
}

extension Parley {
    /// `serve` and `mcp`, in every build but one without the "Server" trait (scripts/demo's).
    static var serverCommands: [any ParsableCommand.Type] {
        #if Server
        [Serve.self, MCPCommand.self]
        #else
        []
        #endif
    }
}

/// Options every command shares.
struct CommonOptions: ParsableArguments {
    @Option(name: .tunable(Tunable.languageModel), help: ArgumentHelp(Tunable.languageModel.summary))
    var model: String?

    @Option(name: .tunable(Tunable.speechToTextModel), help: ArgumentHelp(Tunable.speechToTextModel.summary))
    var whisperModel: String?

    @Option(name: .tunable(Tunable.voice), help: ArgumentHelp(Tunable.voice.summary))
    var voice: String?

    @Option(help: "CPU threads for the engines.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .shortAndLong, help: "Log engine details to stderr.")
    var verbose = false

    func validate() throws {
        guard threads > 0 else { throw ValidationError("--threads must be at least 1.") }
    }

    /// Sets up logging to stderr: warnings by default, everything with --verbose.
    func bootstrapLogging() {
        Self.bootstrap(level: verbose ? .debug : .warning)
    }

    /// Sets up logging of warnings to stderr, for a command without the common options.
    static func bootstrapWarnings() {
        bootstrap(level: .warning)
    }

    private static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    var overrides: EngineOverrides {
        EngineOverrides(languageModel: model, whisperModel: whisperModel, voice: voice, threads: threads)
    }

    /// The runtime these options describe, on the settings (environment, then the settings file).
    /// `tools` are offered by every face beside the built-ins (an MCP server's).
    func runtime(smallModel: String? = nil, database: String? = nil, tools: [Tool] = []) async throws -> Runtime<ContinuousClock> {
        Runtime(
            settings: try await RuntimeSettings.load(),
            options: RuntimeOptions(
                engines: overrides, smallModel: smallModel, database: database.map { URL(fileURLWithPath: $0) }, tools: tools))
    }
}

/// The libraries say what is missing and what kind of thing fixes it; on the command line the
/// fix for a missing on-device model is the setup script or a flag naming another file.
func commandLineRemedy(_ availability: Availability, provider: String) -> Availability {
    guard case .missingModel(let path, _) = availability else { return availability }
    if provider.hasPrefix("llama.cpp") { return .missingModel(path: path, hint: "run scripts/setup or pass --model FILE.gguf") }
    if provider.hasPrefix("whisper.cpp") { return .missingModel(path: path, hint: "run scripts/setup or pass --whisper-model FILE.bin") }
    if provider.hasPrefix("silero") { return .missingModel(path: path, hint: "run scripts/setup to export the Silero weights") }
    return availability
}

/// Prints a user-facing failure as one sentence on stderr and exits non-zero.
func fail(_ error: any Error) -> ExitCode {
    var error = error
    if case .unavailable(let provider, let availability) = error as? ProviderError {
        error = ProviderError.unavailable(provider: provider, commandLineRemedy(availability, provider: provider))
    }
    let message: String
    switch error {
    case let error as CustomStringConvertible: message = error.description
    default: message = error.localizedDescription
    }
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(1)
}

/// Reads an input WAV file, turning every problem into a sentence for the user.
func readAudio(_ path: String) throws -> AudioBuffer {
    let audio = try WAV.read(from: URL(fileURLWithPath: path))
    guard audio.duration >= 0.05 else { throw WAVError.empty }
    return audio
}

/// Checks, before any work is done, that a WAV can be written at `path`.
func validateOutput(_ path: String) throws {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("Cannot write \(path): the folder \(folder) does not exist.")
    }
    guard FileManager.default.isWritableFile(atPath: folder) else {
        throw ValidationError("Cannot write \(path): the folder \(folder) is not writable.")
    }
}

/// Writes text to standard output at once (unbuffered), for streamed replies.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Writes a line to standard error (what the assistant did, beside its answer on standard output).
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
