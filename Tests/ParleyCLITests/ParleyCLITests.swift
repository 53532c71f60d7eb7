import Foundation
import ParleyCore
import ParleyTestServers
import ParleyTestLanes
import Testing

/// Runs the built `parley` executable as a user would.
enum CLI {
    /// The `parley` binary next to the test bundle in the build directory.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On macOS the test binary sits inside a .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("parley")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `parley` and waits for it without holding a thread of Swift's cooperative pool: a
    /// test that serves the child from this process (a wire server) needs those threads free,
    /// and on two cores a blocking wait in each of two tests would starve the server.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], standardInput: URL? = nil,
        executable: URL? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = executable ?? Self.executable
        process.arguments = arguments
        // The suite runs on the fast preset (SmolLM2) unless told otherwise: quick, and the
        // answers the tests expect.
        let base = ["PARLEY_LLM_MODEL": "smollm2-135m"].merging(ProcessInfo.processInfo.environment) { $1 }
        process.environment = base.merging(environment) { $1 }
        // Both outputs go to files, so that no pipe can fill up and block the child.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appendingPathComponent("stdout"), errorFile = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: outputFile)
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try outputHandle.close()
        try errorHandle.close()
        return Result(
            status: status, stdout: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    /// The exit status of a run (for commands whose output does not matter).
    static func runStatus(_ arguments: [String]) async -> Int32 {
        (try? await run(arguments).status) ?? -1
    }

    /// A database path in a new temporary folder (remove the folder afterwards).
    static func temporaryDatabase() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID())/parley.sqlite")
    }

    static func temporaryFile(_ name: String, contents: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID())-\(name)")
        try contents.write(to: url)
        return url
    }
}

@Suite("parley command line", .serialized, .onDeviceEngines)
struct ParleyCLITests {
    /// One sentence on stderr, non-zero exit, no crash (a crash exits with a signal status).
    func expectCleanFailure(_ result: CLI.Result, mentioning phrase: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "status \(result.status), stderr: \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(lines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(phrase), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    static func silentWAV(seconds: Double) -> Data {
        WAV.encode(AudioBuffer(samples: [Float](repeating: 0, count: Int(seconds * 16_000)), sampleRate: 16_000))
    }

    @Test(
        "talk: the interruption flags are checked before anything loads",
        arguments: [
            (["--min-interruption", "9"], "--min-interruption must be between 0 and 5 seconds."),
            (["--backchannels", " , "], "--backchannels needs at least one word"),
            (["--interrupt-at-once", "--backchannels", "yeah"], "--backchannels has no effect with --interrupt-at-once"),
            (["--echo-cancellation"], "--echo-cancellation needs --input - (a live microphone) and --speaker"),
        ])
    func interruptionFlags(_ flags: [String], _ message: String) async throws {
        let result = try await CLI.run(["talk", "--input", "-"] + flags)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test("talk: a missing file")
    func missingFile() async throws {
        expectCleanFailure(try await CLI.run(["talk", "--input", "/nonexistent/question.wav"]), mentioning: "No such file: /nonexistent/question.wav")
    }

    @Test("talk: a file that is not a WAV")
    func notWAV() async throws {
        let file = try CLI.temporaryFile("q.wav", contents: Data("ID3 this is an mp3, honest".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        expectCleanFailure(try await CLI.run(["talk", "--input", file.path]), mentioning: "not a WAV file")
    }

    @Test("talk: a truncated WAV")
    func truncated() async throws {
        let whole = WAV.encode(AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000))
        let file = try CLI.temporaryFile("q.wav", contents: whole.prefix(1000))
        defer { try? FileManager.default.removeItem(at: file) }
        expectCleanFailure(try await CLI.run(["talk", "--input", file.path]), mentioning: "truncated")
    }

    @Test("talk: a WAV with no audio")
    func empty() async throws {
        let file = try CLI.temporaryFile("q.wav", contents: WAV.encode(AudioBuffer(samples: [], sampleRate: 16_000)))
        defer { try? FileManager.default.removeItem(at: file) }
        expectCleanFailure(try await CLI.run(["talk", "--input", file.path]), mentioning: "no audio")
    }

    @Test("talk: silent audio")
    func silent() async throws {
        let file = try CLI.temporaryFile("q.wav", contents: Self.silentWAV(seconds: 2))
        defer { try? FileManager.default.removeItem(at: file) }
        expectCleanFailure(try await CLI.run(["talk", "--input", file.path, "--no-save"]), mentioning: "No speech was found")
    }

    @Test("transcribe: bad input is one sentence too")
    func transcribeBadInput() async throws {
        expectCleanFailure(try await CLI.run(["transcribe", "/nonexistent/a.wav"]), mentioning: "No such file")
        let file = try CLI.temporaryFile("s.wav", contents: Self.silentWAV(seconds: 1))
        defer { try? FileManager.default.removeItem(at: file) }
        expectCleanFailure(try await CLI.run(["transcribe", file.path]), mentioning: "No speech was found")
    }

    @Test("speak: empty text is refused with a reason")
    func speakEmpty() async throws {
        let result = try await CLI.run(["speak", "   ", "--output", "/tmp/never.wav"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no text to speak"))
    }

    @Test("an output in a folder that does not exist is refused before any work")
    func outputFolderMissing() async throws {
        let sample = ParleyPaths.current().sampleQuestion
        for arguments in [["talk", "--input", sample.path, "--no-save"], ["speak", "hello"]] {
            let result = try await CLI.run(arguments + ["--output", "/nonexistent/folder/reply.wav"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("the folder /nonexistent/folder does not exist"), "stderr: \(result.stderr)")
        }
    }

    @Test("a missing language model names the fix")
    func missingModel() async throws {
        expectCleanFailure(try await CLI.run(["chat", "--model", "/nonexistent/m.gguf", "hello"]), mentioning: "run scripts/setup or pass --model")
    }

    @Test("talk answers the spoken sample question, end to end, and writes the spoken answer")
    func talkEndToEnd() async throws {
        let sample = ParleyPaths.current().sampleQuestion
        guard FileManager.default.fileExists(atPath: sample.path) else {
            Issue.record("Missing \(sample.path): run scripts/setup first.")
            return
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-reply-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await CLI.run(["talk", "--input", sample.path, "--output", output.path, "--json", "--no-save"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        struct Document: Decodable {
            struct Turn: Decodable {
                var transcript: String
                var reply: String
                var providers: [String: String]
                var timings_ms: [String: Double]
            }
            var turns: [Turn]
        }
        let document = try JSONDecoder().decode(Document.self, from: Data(result.stdout.utf8))
        let turn = try #require(document.turns.first)
        #expect(document.turns.count == 1)
        // (tiny.en hears espeak-ng's "of" as "on" on some CPUs: the words that carry the question count.)
        #expect(turn.transcript.lowercased().contains("capital"))
        #expect(turn.transcript.lowercased().contains("france"))
        #expect(turn.reply.contains("Paris"))
        #expect(Set(turn.providers.keys) == ["vad", "stt", "llm", "tts"])
        #expect(turn.providers["vad"]?.hasPrefix("silero") == true)
        #expect(turn.timings_ms["stt"].map { $0 > 0 } == true)
        let spoken = try WAV.read(from: output)
        #expect(spoken.duration > 0.5)
    }

    @Test("chat --provider openai --base-url talks to any OpenAI-compatible server")
    func chatOpenAICompatible() async throws {
        let events = [
            #"{"choices":[{"index":0,"delta":{"content":"Paris is "},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"the capital."},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ].map { "data: \($0)\n\n" }.joined()
        let server = try await WireServer.start { request in
            request.path == "/v1/chat/completions"
                ? .stream(contentType: "text/event-stream", chunks: [Data(events.utf8)])
                : .json(404, #"{"error":{"message":"no such route"}}"#)
        }
        defer { server.stop() }
        let result = try await CLI.run([
            "chat", "--provider", "openai", "--base-url", server.baseURL + "/v1", "--remote-model", "served-model", "Capital of France?",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Paris is the capital.")
        let sent = try #require(await server.requests.last?.json)
        #expect(sent["model"] as? String == "served-model")
    }

    @Test("talk with OpenAI configured but its server dead answers on the local model and says why, without the key")
    func talkFallsBack() async throws {
        let sample = ParleyPaths.current().sampleQuestion
        guard FileManager.default.fileExists(atPath: sample.path) else {
            Issue.record("Missing \(sample.path): run scripts/setup first.")
            return
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-fallback-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await CLI.run(
            ["talk", "--input", sample.path, "--output", output.path, "--json", "--no-save"],
            environment: ["OPENAI_API_KEY": "sk-do-not-log-me", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("[LLM] openai"))
        #expect(result.stderr.contains("unreachable"))
        #expect(result.stderr.contains("falling back to llama.cpp"))
        #expect(!result.stderr.contains("sk-do-not-log-me") && !result.stdout.contains("sk-do-not-log-me"))
        #expect(result.stdout.contains(#""llm":"llama.cpp"#))
    }

    @Test("doctor shows each chain, why each provider can or cannot serve, and what a request would use")
    func doctor() async throws {
        let result = try await CLI.run(
            ["doctor", "--json"],
            environment: [
                "OPENAI_API_KEY": "sk-hidden", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                "ANTHROPIC_API_KEY": "", "DEEPGRAM_API_KEY": "",
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        struct Report: Decodable {
            struct Capability: Decodable {
                struct Entry: Decodable {
                    var provider: String
                    var available: Bool
                    var reason: String
                }
                var capability: String
                var chain: [Entry]
                var uses: String?
            }
            var capabilities: [Capability]
            var embeddings: [Capability.Entry]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.capabilities.map(\.capability) == ["LLM", "STT", "TTS", "VAD"])
        let llm = try #require(report.capabilities.first)
        #expect(llm.uses?.hasPrefix("llama.cpp") == true)
        let openai = try #require(llm.chain.first { $0.provider.hasPrefix("openai") })
        #expect(!openai.available && openai.reason.contains("unreachable"))
        #expect(llm.chain.first { $0.provider.hasPrefix("anthropic") }?.reason == "not configured (set ANTHROPIC_API_KEY)")
        #expect(report.capabilities[1].uses?.hasPrefix("whisper.cpp") == true)
        #expect(report.capabilities[3].uses == "silero (v6)")
        // The embedding chain: the server (unreachable here), Ollama (not configured), on device.
        #expect(report.embeddings.count == 3)
        #expect(report.embeddings.first.map { !$0.available && $0.provider.hasPrefix("openai") } == true)
        #expect(report.embeddings.dropFirst().first?.reason == "not configured (set OLLAMA_HOST)")
        #expect(report.embeddings.last?.provider.hasPrefix("llama.cpp") == true)
        #expect(!result.stdout.contains("sk-hidden"))
    }

    @Test("doctor names the ears and why in one line: the machine's choice, or the setting's")
    func doctorEars() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ears-\(UUID())")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let empty = ["PARLEY_HOME": home.path, "PARLEY_STT_MODEL": "", "PARLEY_CONFIG": home.appendingPathComponent("none.json").path]
        // An empty data directory: nothing is installed, whatever this machine could run.
        let machine = try await CLI.run(["doctor"], environment: empty)
        #expect(machine.status == 0, "stderr: \(machine.stderr)")
        let line = try #require(machine.stdout.split(separator: "\n").first { $0.hasPrefix("On-device ears:") })
        #expect(line == "On-device ears: whisper-tiny.en — no speech model is installed; run parley models pull whisper-tiny.en")
        let list = try await CLI.run(["models", "list"], environment: empty)
        #expect(list.stdout.contains("\nEars: whisper-tiny.en — no speech model is installed; run parley models pull whisper-tiny.en.\n"), "\(list.stdout)")
        #expect(list.stdout.contains("whisper-large-v3-turbo  stt"), "\(list.stdout)")
        // Named in the settings: that one, and whisper.cpp hears with it.
        let named = try await CLI.run(["doctor", "--json"], environment: empty.merging(["PARLEY_STT_MODEL": "whisper-small.en"]) { $1 })
        #expect(named.stdout.contains("whisper.cpp (small.en)"), "\(named.stdout)")
        let text = try await CLI.run(["doctor"], environment: empty.merging(["PARLEY_STT_MODEL": "whisper-small.en"]) { $1 })
        #expect(text.stdout.contains("On-device ears: whisper-small.en — chosen in the settings (PARLEY_STT_MODEL)\n"), "\(text.stdout)")
    }
}

/// `parley talk` spells the conversation's tunables as the table says: each flag is there with
/// the table's default, and takes the table's range.
@Suite("talk: the tunables' flags")
struct TalkTunableFlagsTests {
    @Test("each tunable's flag is in the help, with the table's default where the flag has one")
    func help() async throws {
        let result = try await CLI.run(["talk", "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        let help = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for tunable in Tunable.conversation {
            guard let flag = tunable.flag else { continue }
            #expect(help.contains("--\(flag) <"), "--\(flag) is not in the help")
        }
        for tunable in [Tunable.endSilence, .maxTurn, .minInterruption] {
            let flag = try #require(tunable.flag)
            let pattern = "--\(flag) <[a-z-]+> [^<]*\\(default: \(NSRegularExpression.escapedPattern(for: tunable.defaultText))(\\.0)?\\)"
            #expect(help.range(of: pattern, options: .regularExpression) != nil, "--\(flag) does not show its default \(tunable.defaultText)")
        }
    }

    @Test(
        "a value beyond a tunable's range is refused with the table's sentence, before anything loads",
        arguments: [Tunable.endSilence, .maxTurn, .minInterruption, .partialInterval])
    func range(_ tunable: Tunable) async throws {
        let flag = try #require(tunable.flag)
        let result = try await CLI.run(["talk", "--input", "-", "--\(flag)", String(tunable.range.upperBound + 1)])
        #expect(result.status != 0)
        #expect(result.stderr.contains(tunable.refusal("--\(flag)")), "stderr: \(result.stderr)")
    }
}

/// `parley serve` spells the server's limits, and every command the name settings, as the table
/// says.
@Suite("serve: the limits' flags")
struct ServeTunableFlagsTests {
    @Test("each limit's flag is in serve's help with the table's default; the name settings' flags are there too")
    func help() async throws {
        let result = try await CLI.run(["serve", "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        let help = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for tunable in Tunable.server {
            let flag = try #require(tunable.flag)
            let pattern = "--\(flag) <[a-z-]+> [^<]*\\(default: \(NSRegularExpression.escapedPattern(for: tunable.defaultText))(\\.0)?\\)"
            #expect(help.range(of: pattern, options: .regularExpression) != nil, "--\(flag) does not show its default \(tunable.defaultText)")
        }
        for setting in Tunable.names {
            let flag = try #require(setting.flag)
            #expect(help.contains("--\(flag) <"), "--\(flag) is not in the help")
        }
    }

    @Test(
        "a limit beyond its range is refused with the table's sentence, before anything loads",
        arguments: Tunable.server)
    func range(_ tunable: Tunable) async throws {
        let flag = try #require(tunable.flag)
        let result = try await CLI.run(["serve", "--port", "0", "--\(flag)", String(tunable.range.upperBound * 2)])
        #expect(result.status != 0)
        #expect(result.stderr.contains(tunable.refusal("--\(flag)")), "stderr: \(result.stderr)")
    }
}
