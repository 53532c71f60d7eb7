import Foundation
import ParleyCore

/// The MCP servers to connect, as read from a configuration file in the shape most MCP clients
/// share:
///
/// ```json
/// {"mcpServers": {
///     "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"],
///               "env": {"LOG_LEVEL": "error"}},
///     "weather": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer …"}}
/// }}
/// ```
///
/// A server with `command` is started as a child process and spoken to over its standard input
/// and output (stdio); one with `url` over Streamable HTTP. `"disabled": true` leaves a server
/// out, and `"timeout"` (seconds) bounds each of its tool calls. Values of `env` and `headers`
/// are secrets: they reach the server only, and are never logged or described.
public struct MCPServerConfiguration: Sendable, Equatable {
    /// The servers, sorted by name.
    public var servers: [MCPServerEntry]
    /// What was wrong with entries that were left out, one sentence each (for warnings).
    public var problems: [String]

    /// Creates a configuration of `servers`.
    public init(servers: [MCPServerEntry], problems: [String] = []) {
        self.servers = servers.sorted { $0.name < $1.name }
        self.problems = problems
    }

    /// Reads the configuration file at `path`.
    /// - Throws: ``MCPConfigurationError`` when the file cannot be read or is not such a
    ///   configuration. A single entry that is wrong is left out and named in ``problems``.
    public init(contentsOf path: String) throws(MCPConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path)
        }
        try self.init(json: data, source: path)
    }

    /// Reads a configuration from JSON text; `source` names it in errors.
    public init(json data: Data, source: String = "the MCP configuration") throws(MCPConfigurationError) {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: data)
        } catch {
            throw .notJSON(source: source, reason: error.description)
        }
        guard let servers = root["mcpServers"]?.object else { throw .noServers(source: source) }
        var entries: [MCPServerEntry] = []
        var problems: [String] = []
        for (name, value) in servers {
            do {
                if let entry = try MCPServerEntry(name: name, json: value) { entries.append(entry) }
            } catch {
                problems.append(error.description)
            }
        }
        self.init(servers: entries, problems: problems.sorted())
    }
}

/// One MCP server of a configuration: its name and how to reach it.
public struct MCPServerEntry: Sendable, Equatable {
    /// How a server is reached.
    public enum Transport: Sendable, Equatable {
        /// A program started as a child process, spoken to over its standard input and output.
        /// `environment` is added to the few variables every child gets (see ``MCPChildProcess``).
        case stdio(command: String, arguments: [String], environment: [String: String], directory: String?)
        /// A server at a URL, over Streamable HTTP; `headers` go with every request.
        case http(url: URL, headers: [String: String])
    }

    /// The server's name in the configuration (it prefixes a tool whose name is taken).
    public var name: String
    /// How the server is reached.
    public var transport: Transport
    /// The longest one tool call may take.
    public var timeout: Duration

    /// How long a tool call may take unless the entry says otherwise.
    public static let defaultTimeout = Duration.seconds(30)

    /// Creates an entry.
    public init(name: String, transport: Transport, timeout: Duration = MCPServerEntry.defaultTimeout) {
        self.name = name
        self.transport = transport
        self.timeout = timeout
    }

    /// Reads the entry named `name`; `nil` when it is disabled.
    init?(name: String, json: JSONValue) throws(MCPConfigurationError) {
        guard json.object != nil else { throw .invalidEntry(server: name, reason: "it is not a JSON object") }
        if json["disabled"]?.bool == true { return nil }
        var timeout = Self.defaultTimeout
        if let seconds = json["timeout"] {
            guard let value = seconds.number, value > 0, value <= 3_600 else {
                throw .invalidEntry(server: name, reason: "\"timeout\" must be a number of seconds between 0 and 3600")
            }
            timeout = .milliseconds(Int64(value * 1_000))
        }
        let kind = json["type"]?.string
        if let command = json["command"] {
            guard let command = command.string, !command.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .invalidEntry(server: name, reason: "\"command\" must be the program to run, as a string")
            }
            guard kind == nil || kind == "stdio" else {
                throw .invalidEntry(server: name, reason: "it has a \"command\" but its \"type\" is \"\(kind ?? "")\" (use \"stdio\" or leave \"type\" out)")
            }
            let arguments = try Self.strings(json["args"], key: "args", server: name)
            let environment = try Self.dictionary(json["env"], key: "env", server: name)
            let directory = json["cwd"]?.string
            self.init(
                name: name, transport: .stdio(command: command, arguments: arguments, environment: environment, directory: directory),
                timeout: timeout)
        } else if let address = json["url"] {
            guard let text = address.string, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw .invalidEntry(server: name, reason: "\"url\" must be an http or https address")
            }
            if kind == "sse" {
                throw .invalidEntry(
                    server: name,
                    reason: "it uses the old HTTP+SSE transport, which Parley does not speak: give the server's Streamable HTTP endpoint (often …/mcp)")
            }
            guard kind == nil || kind == "http" || kind == "streamable-http" || kind == "streamableHttp" else {
                throw .invalidEntry(server: name, reason: "its \"type\" \"\(kind ?? "")\" is not one Parley knows (use \"http\" or leave it out)")
            }
            let headers = try Self.dictionary(json["headers"], key: "headers", server: name)
            self.init(name: name, transport: .http(url: url, headers: headers), timeout: timeout)
        } else {
            throw .invalidEntry(server: name, reason: "it has neither \"command\" (a program to start) nor \"url\" (a Streamable HTTP endpoint)")
        }
    }

    private static func strings(_ value: JSONValue?, key: String, server: String) throws(MCPConfigurationError) -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw .invalidEntry(server: server, reason: "\"\(key)\" must be an array of strings") }
        var strings: [String] = []
        for item in items {
            guard let string = item.string else { throw .invalidEntry(server: server, reason: "\"\(key)\" must be an array of strings") }
            strings.append(string)
        }
        return strings
    }

    private static func dictionary(_ value: JSONValue?, key: String, server: String) throws(MCPConfigurationError) -> [String: String] {
        guard let value else { return [:] }
        guard let members = value.object else { throw .invalidEntry(server: server, reason: "\"\(key)\" must be an object of strings") }
        var dictionary: [String: String] = [:]
        for (name, item) in members {
            // A number or a flag written without quotes is what its text says.
            switch item {
            case .string(let text): dictionary[name] = text
            case .number, .bool: dictionary[name] = item.text
            default: throw .invalidEntry(server: server, reason: "\"\(key)\".\(name) must be a string")
            }
        }
        return dictionary
    }
}

extension MCPServerEntry {
    /// The entry's secrets: the values of `env` and `headers`, and the URL's password and query.
    var secrets: [String] {
        switch transport {
        case .stdio(_, _, let environment, _):
            return Array(environment.values)
        case .http(let url, let headers):
            let parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            return Array(headers.values) + [parts?.password, parts?.percentEncodedQuery, parts?.query].compactMap { $0 }
        }
    }

    /// `text` (an error's words, say) with every secret of the entry of 4 characters or more
    /// replaced by "…", fit to log.
    public func redacting(_ text: String) -> String {
        secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }.reduce(text) { text, secret in
            text.replacingOccurrences(of: secret, with: "…")
        }
    }
}

extension MCPServerEntry: CustomStringConvertible {
    /// The entry without its secrets: the program and its arguments, or the URL without its
    /// query; never the values of `env` or `headers`.
    public var description: String {
        switch transport {
        case .stdio(let command, let arguments, let environment, _):
            let env = environment.isEmpty ? "" : " (env: \(environment.keys.sorted().joined(separator: ", ")))"
            return "\(name): \(([command] + arguments).joined(separator: " "))\(env)"
        case .http(let url, _):
            var shown = URLComponents(url: url, resolvingAgainstBaseURL: false)
            shown?.query = nil
            shown?.user = nil
            shown?.password = nil
            return "\(name): \(shown?.string ?? url.absoluteString)"
        }
    }
}

/// Why an MCP configuration could not be read.
public enum MCPConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String)
    /// The text is not JSON.
    case notJSON(source: String, reason: String)
    /// There is no `mcpServers` object.
    case noServers(source: String)
    /// One server's entry is not valid (that server is left out).
    case invalidEntry(server: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path):
            "Cannot read the MCP configuration \(path): check the path and that the file is readable."
        case .notJSON(let source, let reason):
            "\(source) is not JSON (\(reason)): write it as {\"mcpServers\": {\"NAME\": {\"command\": …} or {\"url\": …}}}."
        case .noServers(let source):
            "\(source) has no \"mcpServers\" object: write it as {\"mcpServers\": {\"NAME\": {\"command\": …} or {\"url\": …}}}."
        case .invalidEntry(let server, let reason):
            "The MCP server \"\(server)\" is left out: \(reason)."
        }
    }
}
