import Foundation
import Logging
import Synchronization

/// An MCP server started as a child process for the stdio transport: its standard input and
/// output are pipes to this process (the protocol's messages, one JSON text a line); its
/// standard error is logged at debug level, and its last lines are kept to say why it failed.
///
/// The child's environment is the few variables a program needs to run (`PATH`, `HOME`,
/// `USER`, `LOGNAME`, `SHELL`, `TERM`, `LANG`, `TMPDIR`) and the entry's `env`: the rest of this
/// process's environment (API keys among it) is not handed to another program.
actor MCPChildProcess {
    /// The variables of this process that every child gets.
    static let inheritedVariables = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR"]

    /// The descriptor this process reads the child's messages from.
    nonisolated let messagesFromChild: Int32
    /// The descriptor this process writes its messages to the child on.
    nonisolated let messagesToChild: Int32
    /// The last lines the child wrote to its standard error.
    nonisolated let errorTail: ErrorTail

    #if os(Linux) || os(macOS)
    private let process: Process
    // Kept so that their descriptors stay open as long as the child is spoken to.
    private let input: Pipe, output: Pipe, errors: Pipe
    #endif

    /// Starts `command` (a path, or a name looked up on the child's `PATH`) with `arguments`.
    /// - Throws: ``MCPConnectionError`` when the program is not found or cannot start.
    init(
        server: String, command: String, arguments: [String], environment: [String: String], directory: String?,
        logger: Logger
    ) throws(MCPConnectionError) {
        #if os(Linux) || os(macOS)
        // A write to a child that has exited must fail with EPIPE, not end this process.
        _ = ignoreBrokenPipes
        let inherited = ProcessInfo.processInfo.environment.filter { Self.inheritedVariables.contains($0.key) }
        let childEnvironment = inherited.merging(environment) { $1 }
        guard let executable = Self.locate(command, path: childEnvironment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin") else {
            throw .commandNotFound(server: server, command: command)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = childEnvironment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true) }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let tail = ErrorTail()
        let childLogger = logger
        // A child that prints a value of its `env` (a key, say) does not get it logged.
        let secrets = environment.values.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            let text = secrets.reduce(String(decoding: data, as: UTF8.self)) { $0.replacingOccurrences(of: $1, with: "…") }
            tail.append(text)
            for line in text.split(separator: "\n") where !line.isEmpty {
                childLogger.debug("MCP server \(server): \(line.prefix(500))")
            }
        }
        do {
            try process.run()
        } catch {
            errors.fileHandleForReading.readabilityHandler = nil
            throw .launchFailed(server: server, command: executable.path, reason: error.localizedDescription)
        }
        self.process = process
        self.input = input
        self.output = output
        self.errors = errors
        self.messagesFromChild = output.fileHandleForReading.fileDescriptor
        self.messagesToChild = input.fileHandleForWriting.fileDescriptor
        self.errorTail = tail
        #else
        throw .unsupportedPlatform(server: server)
        #endif
    }

    /// Whether the child is still running.
    var isRunning: Bool {
        #if os(Linux) || os(macOS)
        process.isRunning
        #else
        false
        #endif
    }

    /// The child's exit status, once it has exited.
    var exitStatus: Int32? {
        #if os(Linux) || os(macOS)
        process.isRunning ? nil : process.terminationStatus
        #else
        nil
        #endif
    }

    /// Ends the child: closes its standard input (a well-behaved server exits on that), and
    /// sends it SIGTERM if it is still running after `grace`.
    func stop(grace: Duration = .milliseconds(500)) async {
        #if os(Linux) || os(macOS)
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { process.terminate() }
        errors.fileHandleForReading.readabilityHandler = nil
        #endif
    }

    /// The executable `command` names: a path as it is, a bare name from `path`'s folders.
    static func locate(_ command: String, path: String) -> URL? {
        let manager = FileManager.default
        if command.contains("/") {
            return manager.isExecutableFile(atPath: command) ? URL(fileURLWithPath: command) : nil
        }
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(command)
            if manager.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The last 2 KB a child wrote to its standard error.
    final class ErrorTail: Sendable {
        private let text = Mutex("")

        func append(_ more: String) {
            text.withLock { current in
                current += more
                if current.utf8.count > 2_048 { current = String(current.suffix(2_048)) }
            }
        }

        /// The last non-empty line, if any.
        var lastLine: String? {
            text.withLock { current in
                current.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
            }
        }
    }
}

#if os(Linux) || os(macOS)
/// Evaluated once, before the first child: writes to a closed pipe fail with `EPIPE` instead of
/// raising the signal that ends this process.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()
#endif
