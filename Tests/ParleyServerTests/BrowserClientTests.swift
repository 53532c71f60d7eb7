import Foundation
import Testing

extension OnDeviceServerTests {
    /// The browser client in a real browser: headless Chromium, a fake microphone playing the
    /// sample question, `parley serve` on the on-device engines (scripts/check_browser.py).
    @Suite("the browser client in Chromium")
    struct BrowserClient {
        /// Chromium, where Debian installs it (scripts/setup does), or the binary CHROMIUM names.
        static var chromium: String? {
            let candidates = [ProcessInfo.processInfo.environment["CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]
            return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        static var ready: Bool { chromium != nil && OnDeviceServerTests.ServeCommand.hasOpenAISDK }

        /// Where the screenshots go: `.build/browser-check` in the package.
        static let screenshots = ServeProcess.root.appendingPathComponent(".build/browser-check")

        @Test("speak with the space bar, correct the transcript, hear Paris, type a question, find the thread after a reload, barge in hands-free; keyboard only, no console errors",
              .enabled(if: ready, "Chromium or the project's Python venv is missing: run scripts/setup (it installs Debian's chromium and the venv)"))
        func spokenAndTypedTurns() async throws {
            _ = try Samples.question()  // installed by scripts/setup
            let key = "browser-test-key"
            let server = try await ServeProcess.start(environment: ["PARLEY_API_KEYS": key])
            let script = Process()
            script.executableURL = OnDeviceServerTests.ServeCommand.venvPython
            script.arguments = [ServeProcess.root.appendingPathComponent("scripts/check_browser.py").path, server.baseURL, key,
                                Samples.paths.sampleQuestion.path, Self.screenshots.path]
            var environment = ProcessInfo.processInfo.environment
            if let chromium = Self.chromium { environment["CHROMIUM"] = chromium }
            script.environment = environment
            let output = Pipe()
            script.standardOutput = output
            script.standardError = output
            try script.run()
            let printed = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
            script.waitUntilExit()
            let report = String(decoding: printed, as: UTF8.self)
            print(report)
            #expect(script.terminationStatus == 0, "\(report)")
            #expect(report.contains("browser client: all checks passed"), "\(report)")
            server.terminate()
            #expect(await server.exitStatus() == 0)
        }
    }
}
