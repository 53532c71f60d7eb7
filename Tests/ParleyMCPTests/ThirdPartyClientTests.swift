import Foundation
import ParleyCore
import Testing

/// `parley mcp` under the official Python SDK's client (scripts/check_mcp_client.py).
@Suite("parley mcp with a third-party MCP client")
struct ThirdPartyClientTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let venvPython = ParleyPaths.current().home.appendingPathComponent("venv/bin/python")

    /// Whether the project's venv has the MCP Python SDK (scripts/setup installs it).
    static var hasPythonSDK: Bool {
        guard FileManager.default.isExecutableFile(atPath: venvPython.path) else { return false }
        let probe = Process()
        probe.executableURL = venvPython
        probe.arguments = ["-c", "import mcp.client.stdio"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    @Test(
        "the Python SDK's client: handshake, the built-ins listed, a call, and schema and unknown-tool errors as tool errors",
        .enabled(if: hasPythonSDK, "the project's venv has no MCP Python SDK: run scripts/setup"))
    func pythonClient() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let script = Process()
        script.executableURL = Self.venvPython
        script.arguments = [Self.root.appendingPathComponent("scripts/check_mcp_client.py").path, ParleyMCPProcess.executable.path, home.path]
        let output = Pipe()
        script.standardOutput = output
        script.standardError = output
        try script.run()
        let printed = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        script.waitUntilExit()
        let report = String(decoding: printed, as: UTF8.self)
        #expect(script.terminationStatus == 0, "\(report)")
        #expect(report.contains("7 passed, 0 failed"), "\(report)")
    }
}
