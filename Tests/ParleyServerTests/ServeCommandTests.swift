import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import ParleyStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `parley serve` as a child process, as a user (or an app) runs it.
final class ServeProcess: Sendable {
    let process: Process
    let port: Int
    let database: URL

    /// The `parley` binary next to the test bundle in the build directory.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("parley")
    }

    /// The repository's root (for its scripts).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private init(process: Process, port: Int, database: URL) {
        self.process = process
        self.port = port
        self.database = database
    }

    /// Starts `parley serve --port 0 …` and returns once it says where it listens.
    static func start(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> ServeProcess {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("parley-serve-\(UUID())/parley.sqlite")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--database", database.path] + arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasSuffix("_API_KEY") && !$0.key.hasSuffix("_BASE_URL") }
        if merged["PARLEY_LLM_MODEL"] == nil { merged["PARLEY_LLM_MODEL"] = "smollm2-135m" }  // the suite's fast preset
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let line = await Task.detached { () -> String in
            var collected = Data()
            while !collected.contains(UInt8(ascii: "\n")) {
                let more = handle.availableData
                if more.isEmpty { break }
                collected.append(more)
            }
            return String(decoding: collected, as: UTF8.self)
        }.value
        guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
            let port = Int(line[range].split(separator: ":").last ?? "")
        else {
            process.terminate()
            Issue.record("parley serve did not say where it listens: \(line)")
            throw CancellationError()
        }
        return ServeProcess(process: process, port: port, database: database)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Resident memory, from /proc (Linux).
    var residentMegabytes: Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1_024
    }

    /// Sends SIGTERM.
    func terminate() {
        kill(process.processIdentifier, SIGTERM)
    }

    /// Waits for the process to end and returns its exit status.
    func exitStatus() async -> Int32 {
        let process = self.process
        return await Task.detached {
            process.waitUntilExit()
            return process.terminationStatus
        }.value
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: database.deletingLastPathComponent())
    }
}
extension OnDeviceServerTests {
    @Suite("parley serve")
    struct ServeCommand {
        static let venvPython = ParleyPaths.current().home.appendingPathComponent("venv/bin/python")

        /// Runs `scripts/NAME` in the venv against `server` with the key "sdk-test-key" (and
        /// `extra` arguments); its exit status and everything it printed.
        static func runScript(_ name: String, server: ServeProcess, extra: [String] = []) async throws -> (status: Int32, report: String) {
            let script = Process()
            script.executableURL = venvPython
            script.arguments = [ServeProcess.root.appendingPathComponent("scripts/" + name).path, server.baseURL + "/v1", "sdk-test-key"] + extra
            let output = Pipe()
            script.standardOutput = output
            script.standardError = output
            try script.run()
            let printed = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
            script.waitUntilExit()
            return (script.terminationStatus, String(decoding: printed, as: UTF8.self))
        }

        /// Whether the project's venv has the OpenAI SDK (scripts/setup installs it).
        static var hasOpenAISDK: Bool { venvImports("openai") }

        /// Whether the project's venv has LiveKit Agents' OpenAI plugin (scripts/setup installs it).
        static var hasLiveKitPlugin: Bool { venvImports("livekit.plugins.openai") }

        /// Whether the project's venv can import `module`.
        static func venvImports(_ module: String) -> Bool {
            guard FileManager.default.isExecutableFile(atPath: venvPython.path) else { return false }
            let probe = Process()
            probe.executableURL = venvPython
            probe.arguments = ["-c", "import " + module]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { return false }
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }

        @Test(
            "the official OpenAI Python SDK, unchanged, against a live server",
            .enabled(if: hasOpenAISDK, "the OpenAI Python SDK is not installed in ~/.local/share/parley/venv: run scripts/setup"))
        func officialPythonSDK() async throws {
            _ = try Samples.question()  // installed by scripts/setup
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": "sdk-test-key"])
            let (status, report) = try await Self.runScript("check_openai_sdk.py", server: server, extra: [Samples.paths.sampleQuestion.path])
            #expect(status == 0, "\(report)")
            #expect(report.contains("ok: streamed chat answers"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }

        @Test(
            "function calling with the official OpenAI Python SDK and LangChain's ChatOpenAI: round trips whole, streamed and parallel, and bad tool requests",
            .enabled(if: hasOpenAISDK, "the OpenAI Python SDK is not installed in ~/.local/share/parley/venv: run scripts/setup"))
        func officialSDKTools() async throws {
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": "sdk-test-key"])
            _ = try Samples.question()  // installed by scripts/setup
            let (status, report) = try await Self.runScript("check_openai_tools.py", server: server, extra: [Samples.paths.sampleQuestion.path])
            #expect(status == 0, "\(report)")
            #expect(report.contains("ok: a streamed call assembles into the named function"), "\(report)")
            #expect(report.contains("ok: LangChain bind_tools gets a tool call"), "\(report)")
            #expect(report.contains("ok: realtime: the answer after the output is spoken and uses it"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }

        @Test(
            "audio with the official OpenAI Python SDK: speech in every format heard back through ffmpeg, speech events, browser and phone recordings, subtitles, word times, streamed transcripts, translations",
            .enabled(if: hasOpenAISDK && AudioTool.isAvailable, "the OpenAI Python SDK or ffmpeg is not installed: run scripts/setup"))
        func officialSDKAudio() async throws {
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": "sdk-test-key"])
            _ = try Samples.question()  // installed by scripts/setup
            let (status, report) = try await Self.runScript("check_openai_audio.py", server: server, extra: [Samples.paths.sampleQuestion.path])
            #expect(status == 0, "\(report)")
            #expect(report.contains("ok: a browser's webm/opus is transcribed"), "\(report)")
            #expect(report.contains("ok: speech as events joins into a playable mp3"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }

        @Test(
            "the voice frameworks' own OpenAI clients, driven directly: LiveKit Agents' STT, LLM, TTS with default settings and realtime model (and Pipecat's OpenAI services when installed)",
            .enabled(if: hasLiveKitPlugin && AudioTool.isAvailable, "livekit-plugins-openai or ffmpeg is not installed: run scripts/setup"))
        func voiceFrameworks() async throws {
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": "sdk-test-key"])
            _ = try Samples.question()  // installed by scripts/setup
            let (status, report) = try await Self.runScript("check_voice_frameworks.py", server: server, extra: [Samples.paths.sampleQuestion.path])
            #expect(status == 0, "\(report)")
            #expect(report.contains("ok: livekit: STT recognizes the recording"), "\(report)")
            #expect(report.contains("ok: livekit: TTS with default settings"), "\(report)")
            #expect(report.contains("ok: livekit: realtime model answers the spoken question"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }

        @Test(
            "the Responses API with the official OpenAI Python SDK and the OpenAI Agents SDK: whole, streamed, continued, read back, deleted, a function tool, an agent",
            .enabled(if: hasOpenAISDK, "the OpenAI Python SDK is not installed in ~/.local/share/parley/venv: run scripts/setup"))
        func officialSDKResponses() async throws {
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": "sdk-test-key"])
            let (status, report) = try await Self.runScript("check_openai_responses.py", server: server)
            #expect(status == 0, "\(report)")
            #expect(report.contains("ok: a continued response remembers the first"), "\(report)")
            #expect(report.contains("ok: the output of the call is answered in words"), "\(report)")
            #expect(report.contains("ok: openai-agents: the agent called its function tool and answered"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }

        @Test("SIGTERM lets a stream in flight finish, then the server exits cleanly; idle, it is small")
        func gracefulShutdown() async throws {
            let server = try await ServeProcess.start()
            let idle = try #require(server.residentMegabytes)
            print("parley serve idle RSS: \(String(format: "%.1f", idle)) MB")
            #expect(idle < 150, "idle RSS \(idle) MB")

            var request = HTTPClientRequest(url: server.baseURL + "/v1/chat/completions")
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(
                ByteBuffer(
                    bytes: try JSONSerialization.data(withJSONObject: [
                        "model": "local", "stream": true, "temperature": 0, "max_tokens": 30,
                        "messages": [["role": "user", "content": "Write a long story about a dragon who learns to read."]],
                    ])))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            #expect(response.status == .ok)
            var body = ""
            var signalled = false
            for try await buffer in response.body {
                body += String(buffer: buffer)
                if !signalled, body.contains("\"content\":\"") && body.components(separatedBy: "data: ").count > 3 {
                    signalled = true
                    server.terminate()
                }
            }
            #expect(signalled)
            #expect(body.hasSuffix("data: [DONE]\n\n"), "the stream was cut: \(body.suffix(200))")
            #expect(await server.exitStatus() == 0)
            await #expect(throws: (any Error).self) {
                _ = try await HTTPClient.shared.execute(HTTPClientRequest(url: server.baseURL + "/health"), timeout: .seconds(5))
            }
        }

        @Test("refuses to listen beyond loopback without keys, in one sentence")
        func refusesOpenAddress() throws {
            let process = Process()
            process.executableURL = ServeProcess.executable
            process.arguments = ["serve", "--host", "0.0.0.0", "--port", "0"]
            process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "PARLEY_API_KEYS" }
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1)
            #expect(stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1, "\(stderr)")
            #expect(stderr.contains("Refusing to listen on 0.0.0.0 without API keys"), "\(stderr)")
        }
    }
}

extension OnDeviceServerTests.ServeCommand {
    @Test("SIGTERM during a realtime reply: the reply finishes, both messages are saved, the client is told, the server exits")
    func realtimeShutdown() async throws {
        let server = try await ServeProcess.start()
        try await RealtimeTestClient.with(port: server.port) { realtime in
            try await realtime.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "What is the capital of France?"]],
                ],
            ])
            try await realtime.send(["type": "response.create"])
            try await realtime.next("response.created", within: 120)
            server.terminate()
            let done = try await realtime.next("response.done", within: 60)
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            try await realtime.waitForClose(within: 30)
        }
        #expect(await server.exitStatus() == 0)
        let store = try ConversationStore(path: server.database)
        let thread = try #require(try store.threads().first).thread.id
        #expect(try store.messages(in: thread).map(\.role) == [.user, .assistant])
    }
}
