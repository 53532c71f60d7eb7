/// Why an MCP server could not be connected, or stopped answering. Each says what to do; none
/// carries a secret of the configuration (its `env` or `headers` values).
public enum MCPConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program of a stdio server is not on the child's `PATH` and is no executable path.
    case commandNotFound(server: String, command: String)
    /// The program could not be started.
    case launchFailed(server: String, command: String, reason: String)
    /// This platform cannot start programs (iOS and the like): use a server's URL instead.
    case unsupportedPlatform(server: String)
    /// The server did not complete the handshake or list its tools in time.
    case timedOut(server: String, seconds: Int)
    /// The server ended or refused the handshake; `detail` is its last words, when known.
    case handshakeFailed(server: String, reason: String)
    /// The server has exited; its tools cannot be called until Parley is started again.
    case serverExited(server: String, status: Int32?)

    public var description: String {
        switch self {
        case .commandNotFound(let server, let command):
            "MCP server \"\(server)\": the program \"\(command)\" was not found: install it, or give its full path as \"command\" (the server gets PATH from Parley's environment unless its \"env\" sets one)."
        case .launchFailed(let server, let command, let reason):
            "MCP server \"\(server)\": \(command) could not be started (\(reason)): check that it is an executable program."
        case .unsupportedPlatform(let server):
            "MCP server \"\(server)\": this platform cannot start programs; reach the server by its \"url\" (Streamable HTTP) instead."
        case .timedOut(let server, let seconds):
            "MCP server \"\(server)\" did not answer within \(seconds) s: check that it is an MCP server and that it starts on its own (run its command by hand)."
        case .handshakeFailed(let server, let reason):
            "MCP server \"\(server)\" could not be connected: \(reason)."
        case .serverExited(let server, let status):
            "MCP server \"\(server)\" has exited\(status.map { " (status \($0))" } ?? ""): restart Parley to start it again."
        }
    }
}
