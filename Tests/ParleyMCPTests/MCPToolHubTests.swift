import Foundation
import ParleyCore
import ParleyMCP
import Testing

/// An MCP server as a test double: fixed tools, answers by name.
actor FakeSession: MCPToolSession {
    nonisolated let server: String
    let tools: [MCPToolDescription]
    let answer: @Sendable (String, JSONValue) throws -> MCPToolOutput
    private(set) var calls: [(String, JSONValue)] = []

    init(_ server: String, tools: [String], answer: @escaping @Sendable (String, JSONValue) throws -> MCPToolOutput) {
        self.server = server
        self.tools = tools.map { MCPToolDescription(name: $0, description: "The \($0) tool.", inputSchema: ["type": "object", "properties": [:]]) }
        self.answer = answer
    }

    func listTools() async throws -> [MCPToolDescription] { tools }

    func callTool(named name: String, arguments: JSONValue) async throws -> MCPToolOutput {
        calls.append((name, arguments))
        return try answer(name, arguments)
    }

    func close() async {}
}

struct Unreachable: Error, CustomStringConvertible {
    var description: String { "connection refused" }
}

@Suite("MCP tool hub")
struct MCPToolHubTests {
    @Test("names: a tool keeps its own unless a built-in or an earlier server has it, or it is no function name; then SERVER_TOOL")
    func naming() {
        let files = FakeSession("files", tools: ["read", "current_date_time", "list.dir"]) { _, _ in MCPToolOutput(text: "") }
        let notes = FakeSession("notes", tools: ["read", "search"]) { _, _ in MCPToolOutput(text: "") }
        let hub = MCPToolHub(servers: [.init(session: notes, tools: notes.tools), .init(session: files, tools: files.tools)])
        let names = hub.tools(avoiding: ["current_date_time"]).map(\.definition.name)
        #expect(names == ["read", "files_current_date_time", "files_list_dir", "notes_read", "search"])
    }

    @Test("a call goes to its server under the server's own name; a tool error and a failing server are error results for the model")
    func calls() async throws {
        let session = FakeSession("files", tools: ["current_date_time", "read", "broken"]) { name, arguments in
            switch name {
            case "read": return MCPToolOutput(text: "No such file: \(arguments["path"]?.string ?? "")", isError: true)
            case "broken": throw Unreachable()
            default: return MCPToolOutput(text: "noon")
            }
        }
        let hub = MCPToolHub(servers: [.init(session: session, tools: session.tools)])
        let box = try ToolBox(hub.tools(avoiding: ["current_date_time"]))
        let results = await box.run([
            ToolCall(id: "1", name: "files_current_date_time", arguments: "{}"),
            ToolCall(id: "2", name: "read", arguments: #"{"path":"a.txt"}"#),
            ToolCall(id: "3", name: "broken", arguments: "{}"),
        ])
        #expect(results.map(\.isError) == [false, true, true])
        #expect(results[0].content == "noon")
        #expect(results[1].content == "The tool failed: No such file: a.txt")
        #expect(results[2].content == "The tool failed: the MCP server \"files\" did not answer: connection refused")
        // The box runs the calls at the same time: the server sees them in any order.
        let calls = await session.calls
        #expect(calls.map(\.0).sorted() == ["broken", "current_date_time", "read"])
        #expect(calls.first { $0.0 == "read" }?.1 == ["path": "a.txt"])
    }
}
