import Crypto
import Foundation
import ParleyTestServers
import Synchronization
import ParleyTestLanes
import Testing

@Suite("parley models", .onDeviceEngines)
struct ModelsCLITests {
    /// A file served over HTTP that stalls after `stallAfter` bytes until `release()`; it
    /// answers `Range: bytes=N-` with 206 as a CDN does.
    final class StallingFile: Sendable {
        let data: Data
        let stallAfter: Int
        private let released = Mutex(false)

        init(data: Data, stallAfter: Int) {
            self.data = data
            self.stallAfter = stallAfter
        }

        func release() { released.withLock { $0 = true } }

        func answer(_ request: WireServer.Recorded) -> WireServer.Reply {
            guard request.path == "/files/model.gguf" else { return .json(404, "{}") }
            if request.method == "HEAD" {
                return .body(
                    status: 200, contentType: "application/octet-stream", Data(),
                    headers: ["content-length": "\(data.count)", "accept-ranges": "bytes"])
            }
            var start = 0
            if let range = request.headers["range"], let first = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? "") {
                start = first
            }
            let body = data.subdata(in: start..<data.count)
            var headers = ["content-length": "\(body.count)"]
            if start > 0 { headers["content-range"] = "bytes \(start)-\(data.count - 1)/\(data.count)" }
            let chunks = stride(from: 0, to: body.count, by: 32 * 1024).map { body.subdata(in: $0..<min(body.count, $0 + 32 * 1024)) }
            if released.withLock({ $0 }) {
                return .stream(status: start > 0 ? 206 : 200, contentType: "application/octet-stream", chunks: chunks, headers: headers)
            }
            let sent = chunks.prefix(stallAfter / (32 * 1024))
            return .stream(
                status: start > 0 ? 206 : 200, contentType: "application/octet-stream", chunks: Array(sent),
                ending: .stall(keepAlive: nil), headers: headers)
        }
    }

    @Test("a pull killed mid-download resumes from the bytes it kept, and the file is verified")
    func killedPullResumes() async throws {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let sha = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let file = StallingFile(data: data, stallAfter: 1_000_000)
        let server = try await WireServer.start { file.answer($0) }
        defer { server.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-models-cli-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let partial = home.appendingPathComponent("models/model.gguf.partial")
        let arguments = ["models", "pull", "--url", server.baseURL + "/files/model.gguf", "--sha256", sha, "--quiet"]

        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PARLEY_HOME": home.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var kept: Int64 = 0
        for _ in 0..<400 where kept < 900_000 {
            try await Task.sleep(for: .milliseconds(25))
            kept = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        try #require(kept >= 900_000, "the download never got going")
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        // What it kept is what the file holds once the process is gone: it may have written
        // more between the last look and the kill.
        kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber).int64Value

        file.release()
        let result = try await CLI.run(arguments, environment: ["PARLEY_HOME": home.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("verified"))
        let installed = home.appendingPathComponent("models/model.gguf")
        #expect(try Data(contentsOf: installed) == data)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        let ranges = await server.requests.filter { $0.method == "GET" }.map { $0.headers["range"] }
        #expect(ranges.count == 2)
        #expect(ranges.last == "bytes=\(kept)-")

        // It shows up in the list as a file the catalog does not know; a bad id is one sentence.
        let list = try await CLI.run(["models", "list"], environment: ["PARLEY_HOME": home.path])
        #expect(list.stdout.contains("other file: \(installed.path)"))
        let unknown = try await CLI.run(["models", "pull", "no-such-model"], environment: ["PARLEY_HOME": home.path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("error: No model called no-such-model in the catalog; known: smollm2-135m"))
        let noChecksum = try await CLI.run(["models", "pull", "--url", server.baseURL + "/files/model.gguf"], environment: ["PARLEY_HOME": home.path])
        #expect(noChecksum.status != 0)
        #expect(noChecksum.stderr.contains("--sha256"))
    }

    @Test("a disk that fills mid-download (a file-size cap) stops the pull in one sentence, keeping the bytes; with room again it resumes and verifies")
    func diskFillsMidDownload() async throws {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let sha = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let file = StallingFile(data: data, stallAfter: data.count)
        file.release()
        let server = try await WireServer.start { file.answer($0) }
        defer { server.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-models-full-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let partial = home.appendingPathComponent("models/model.gguf.partial")
        let arguments = ["models", "pull", "--url", server.baseURL + "/files/model.gguf", "--sha256", sha, "--quiet"]

        // The shell caps the size of any file the pull writes at 1 MiB (ulimit -f, in KiB) and
        // ignores SIGXFSZ, so the write past the cap fails as it does on a full disk.
        let capped = try await CLI.run(
            ["-c", #"trap '' XFSZ; ulimit -f 1024; exec "$0" "$@""#, CLI.executable.path] + arguments,
            environment: ["PARLEY_HOME": home.path], executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(capped.status == 1)
        let lines = capped.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("error: The disk filled up while writing model.gguf"), "stderr: \(capped.stderr)")
        #expect(capped.stderr.contains("the bytes so far are kept"))
        let kept = (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(kept > 0 && kept <= 1_048_576, "kept \(kept) bytes")

        let resumed = try await CLI.run(arguments, environment: ["PARLEY_HOME": home.path])
        #expect(resumed.status == 0, "stderr: \(resumed.stderr)")
        #expect(try Data(contentsOf: home.appendingPathComponent("models/model.gguf")) == data)
        let ranges = await server.requests.filter { $0.method == "GET" }.map { $0.headers["range"] }
        #expect(ranges.last == "bytes=\(kept)-")
    }

    @Test("use writes the choice into the settings file, keeping the rest; list reports it; auto undoes it")
    func useWritesSettings() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-models-use-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let config = home.appendingPathComponent("config.json")
        try Data(#"{"openai": {"model": "kept"}}"#.utf8).write(to: config)
        let environment = ["PARLEY_HOME": home.path, "PARLEY_LLM_MODEL": ""]
        let used = try await CLI.run(["models", "use", "qwen2.5-coder-0.5b"], environment: environment)
        #expect(used.status == 0, "stderr: \(used.stderr)")
        #expect(used.stdout.contains("not installed yet"))
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any])
        #expect((written["parley"] as? [String: Any]).flatMap { $0["llm"] as? [String: Any] }?["model"] as? String == "qwen2.5-coder-0.5b")
        #expect((written["openai"] as? [String: Any])?["model"] as? String == "kept")
        let list = try await CLI.run(["models", "list", "--json"], environment: environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        #expect((document["language_model"] as? [String: Any])?["id"] as? String == "qwen2.5-coder-0.5b")
        let notLLM = try await CLI.run(["models", "use", "silero-vad-v6"], environment: environment)
        #expect(notLLM.status != 0)
        _ = try await CLI.run(["models", "use", "auto"], environment: environment)
        let reset = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any])
        #expect(reset["parley"] == nil)
    }
}
