import Foundation
import ParleyMCP
import Testing

@Suite("MCP server configuration")
struct MCPServerConfigurationTests {
    @Test("the common mcpServers shape: stdio servers with args and env, HTTP servers with a URL and headers")
    func readsCommonShape() throws {
        let json = #"""
            {"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"TOKEN": "s3cret", "PORT": 3}},
                "weather": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer s3cret"}, "timeout": 5},
                "off": {"command": "never", "disabled": true}
            }}
            """#
        let configuration = try MCPServerConfiguration(json: Data(json.utf8))
        #expect(configuration.problems.isEmpty)
        #expect(configuration.servers.map(\.name) == ["files", "weather"])
        #expect(
            configuration.servers[0].transport
                == .stdio(
                    command: "npx", arguments: ["-y", "server-files", "/tmp"],
                    environment: ["TOKEN": "s3cret", "PORT": "3"], directory: nil))
        #expect(configuration.servers[1].transport == .http(url: URL(string: "http://127.0.0.1:8000/mcp")!, headers: ["Authorization": "Bearer s3cret"]))
        #expect(configuration.servers[1].timeout == .seconds(5))
        // Descriptions (what logs show) name the variables, never their values.
        #expect(configuration.servers.allSatisfy { !$0.description.contains("s3cret") })
        #expect(configuration.servers[0].description.contains("TOKEN"))
        // Error words that carry a secret (a server echoing its key, a URL with a token) lose it.
        #expect(configuration.servers[1].redacting("401 for Bearer s3cret") == "401 for …")
        let tokenURL = MCPServerEntry(name: "t", transport: .http(url: URL(string: "https://example.org/mcp?key=abcd1234")!, headers: [:]))
        #expect(tokenURL.redacting("failed: https://example.org/mcp?key=abcd1234") == "failed: https://example.org/mcp?…")
    }

    @Test(
        "a wrong entry is left out with a sentence; the others stay",
        arguments: [
            (#"{"command": 3}"#, "\"command\" must be the program to run"),
            (#"{"url": "ftp://example.org"}"#, "\"url\" must be an http or https address"),
            (#"{"url": "http://127.0.0.1:1/sse", "type": "sse"}"#, "old HTTP+SSE transport"),
            (#"{"args": ["x"]}"#, "neither \"command\""),
            (#"{"command": "x", "env": {"A": ["b"]}}"#, "\"env\".A must be a string"),
            (#"{"command": "x", "timeout": -1}"#, "\"timeout\" must be a number of seconds"),
        ])
    func leavesOutWrongEntries(entry: String, phrase: String) throws {
        let json = #"{"mcpServers": {"good": {"command": "true"}, "bad": "# + entry + "}}"
        let configuration = try MCPServerConfiguration(json: Data(json.utf8))
        #expect(configuration.servers.map(\.name) == ["good"])
        #expect(configuration.problems.count == 1)
        #expect(configuration.problems.first?.contains("\"bad\" is left out") == true)
        #expect(configuration.problems.first?.contains(phrase) == true, "\(configuration.problems)")
    }

    @Test("a file that is not a configuration is an error saying how to write one")
    func refusesNonConfiguration() {
        #expect(throws: MCPConfigurationError.noServers(source: "x.json")) {
            try MCPServerConfiguration(json: Data(#"{"servers": {}}"#.utf8), source: "x.json")
        }
        #expect(throws: MCPConfigurationError.unreadable(path: "/nonexistent/mcp.json")) {
            try MCPServerConfiguration(contentsOf: "/nonexistent/mcp.json")
        }
    }
}
