import Foundation
import ParleyCore
import ParleyRuntime
import Testing

/// `parley serve --mcp CONFIG` and `parley chat --mcp CONFIG` as a user runs them.
@Suite("parley serve --mcp")
struct ServeWithMCPTests {
    /// The PIDs whose parent is `pid` (Linux's /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    @Test(
        "a server that is missing is a warning; the working one's tools are listed; the server listens, and on SIGTERM ends its MCP children",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/stat")))
    func serveWarnsAndListens() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let configuration = home.appendingPathComponent("mcp.json")
        let parley = ParleyMCPProcess.executable.path
        try Data(
            #"""
            {"mcpServers": {
                "mine": {"command": "\#(parley)", "args": ["mcp", "--database", "\#(home.path)/parley.sqlite"], "env": {"PARLEY_HOME": "\#(home.path)", "SECRET_TOKEN": "hunter2"}},
                "gone": {"command": "no-such-mcp-server-here"},
                "broken": {"url": 7}
            }}
            """#.utf8
        ).write(to: configuration)

        let serve = Process()
        serve.executableURL = ParleyMCPProcess.executable
        serve.arguments = [
            "serve", "--port", "0", "--probe-interval", "0", "--database", home.appendingPathComponent("serve.sqlite").path,
            "--mcp", configuration.path,
        ]
        serve.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasSuffix("_API_KEY") }
            .merging(["PARLEY_HOME": home.path, "PARLEY_LLM_MODEL": "smollm2-135m"]) { $1 }
        let output = Pipe(), errors = home.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        serve.standardOutput = output
        serve.standardError = try FileHandle(forWritingTo: errors)
        try serve.run()
        let said = await Task.detached { () -> String in
            var collected = Data()
            while !collected.contains(UInt8(ascii: "\n")) {
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { break }
                collected.append(more)
            }
            return String(decoding: collected, as: UTF8.self)
        }.value
        #expect(said.contains("Parley is listening on"), "\(said)")
        let mcpChildren = Self.children(of: serve.processIdentifier)
        #expect(mcpChildren.count == 1, "the one MCP server that starts is serve's child")

        kill(serve.processIdentifier, SIGTERM)
        let status = await Task.detached {
            serve.waitUntilExit(); return serve.terminationStatus
        }.value
        #expect(status == 0)
        let log = try String(contentsOf: errors, encoding: .utf8)
        #expect(log.contains("MCP server mine: 3 tools (search_materials, upcoming_assignments, current_date_time)"), "\(log)")
        #expect(log.contains("MCP server \"gone\": the program \"no-such-mcp-server-here\" was not found"), "\(log)")
        #expect(log.contains("The MCP server \"broken\" is left out: \"url\" must be an http or https address"), "\(log)")
        #expect(!log.contains("hunter2"))
        // serve closed its MCP server on the way out.
        try await Task.sleep(for: .milliseconds(200))
        #expect(mcpChildren.allSatisfy { kill($0, 0) != 0 }, "the MCP child outlived serve")
    }

    @Test("parley tools --mcp lists the MCP servers' tools after the built-ins, and warns of one that does not start")
    func toolsListsMCPTools() async throws {
        let home = try ParleyMCPProcess.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let configuration = home.appendingPathComponent("mcp.json")
        try Data(
            #"""
            {"mcpServers": {
                "other": {"command": "\#(ParleyMCPProcess.executable.path)", "args": ["mcp"], "env": {"PARLEY_HOME": "\#(home.path)"}},
                "gone": {"command": "/nonexistent/mcp-server"}
            }}
            """#.utf8
        ).write(to: configuration)
        let tools = Process()
        tools.executableURL = ParleyMCPProcess.executable
        tools.arguments = ["tools", "--json", "--mcp", configuration.path]
        tools.environment = ProcessInfo.processInfo.environment.merging(["PARLEY_HOME": home.path]) { $1 }
        let output = Pipe(), errors = home.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        tools.standardOutput = output
        tools.standardError = try FileHandle(forWritingTo: errors)
        try tools.run()
        let printed = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        tools.waitUntilExit()
        #expect(tools.terminationStatus == 0)
        let listed = try JSONValue(parsing: printed)
        let names = listed.array?.compactMap { $0["function"]?["name"]?.string } ?? []
        #expect(names == BuiltInTools.names + BuiltInTools.names.map { "other_\($0)" }, "\(String(decoding: printed, as: UTF8.self))")
        let warned = try String(contentsOf: errors, encoding: .utf8)
        #expect(warned.contains("MCP server \"gone\": the program \"/nonexistent/mcp-server\" was not found"), "\(warned)")
    }

    @Test("a configuration that cannot be read is one error sentence, before anything starts")
    func unreadableConfiguration() async throws {
        let chat = Process()
        chat.executableURL = ParleyMCPProcess.executable
        chat.arguments = ["chat", "--mcp", "/nonexistent/mcp.json", "Hello"]
        let errors = Pipe()
        chat.standardOutput = FileHandle.nullDevice
        chat.standardError = errors
        try chat.run()
        let said = await Task.detached { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
        chat.waitUntilExit()
        #expect(chat.terminationStatus == 1)
        #expect(said.contains("error: Cannot read the MCP configuration /nonexistent/mcp.json: check the path"), "\(said)")
    }
}
