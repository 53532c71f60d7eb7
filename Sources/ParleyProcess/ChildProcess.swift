import Dispatch
import Foundation
import Synchronization

/// Runs a program as a separate process, feeding it standard input and collecting its
/// output, without blocking Swift's cooperative threads. Cancelling the calling task
/// terminates the process.
public struct ChildProcess {
    /// What a finished process left behind.
    public struct Output: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var standardOutput: Data
        /// Everything written to standard error.
        public var standardError: Data
    }

    /// Failures to start a program.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case launchFailed(String, String)
        case unsupportedPlatform(String)
        case exited(String, Int32, String)

        package var description: String {
            switch self {
            case .notFound(let name): return "\(name) is not installed or not on PATH"
            case .launchFailed(let name, let reason): return "could not start \(name): \(reason)"
            case .unsupportedPlatform(let name): return "\(name) cannot run here: this platform runs no child processes"
            case .exited(let name, let status, let message):
                return "\(name) failed (exit status \(status))" + (message.isEmpty ? "" : ": \(message)")
            }
        }
    }

    /// Whether this platform runs child processes (Linux and macOS do; iOS and its kin do
    /// not, so the providers built on them report themselves unavailable there).
    public static var isSupported: Bool {
        #if os(Linux) || os(macOS)
        true
        #else
        false
        #endif
    }

    /// The full path of `name` found on `PATH`, or `nil`.
    public static func locate(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard isSupported else { return nil }
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments`, writing `input` to its standard input; `environment`
    /// adds to (or replaces entries of) this process's environment.
    public static func run(_ executable: String, arguments: [String], input: Data = Data(), environment: [String: String] = [:]) async throws -> Output {
        #if os(Linux) || os(macOS)
        ignoreBrokenPipes
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let box = ProcessBox(process)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: Failure.launchFailed(executable, error.localizedDescription))
                    return
                }
                let group = DispatchGroup()
                let errorData = DataBox()
                DispatchQueue.global().async(group: group) {
                    stdin.fileHandleForWriting.write(input)
                    try? stdin.fileHandleForWriting.close()
                }
                DispatchQueue.global().async(group: group) {
                    errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
                }
                DispatchQueue.global().async {
                    let data = stdout.fileHandleForReading.readDataToEndOfFile()
                    group.wait()
                    process.waitUntilExit()
                    continuation.resume(returning: Output(status: process.terminationStatus, standardOutput: data, standardError: errorData.get()))
                }
            }
        } onCancel: {
            box.terminate()
        }
        #else
        throw Failure.unsupportedPlatform(executable)
        #endif
    }
}

extension ChildProcess {
    /// Runs `executable` with `arguments` as a filter: each chunk of `input` is written to its
    /// standard input as it arrives (standard input closes when `input` ends), and its
    /// standard output comes back in chunks as the program writes them. The stream fails
    /// with the program's own message when it exits with a non-zero status; ending the
    /// consuming task early terminates the program.
    public static func filter<Input: AsyncSequence & Sendable>(
        _ executable: String, arguments: [String], input: Input
    ) -> AsyncThrowingStream<Data, any Error> where Input.Element == Data {
        AsyncThrowingStream { continuation in
            #if os(Linux) || os(macOS)
            ignoreBrokenPipes
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            do {
                try process.run()
            } catch {
                continuation.finish(throwing: Failure.launchFailed(executable, error.localizedDescription))
                return
            }
            let box = ProcessBox(process)
            let errorData = DataBox()
            let errors = DispatchGroup()
            DispatchQueue.global().async(group: errors) {
                errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
            }
            // Writes block while the pipe is full, so they run on their own queue, in order.
            let writes = DispatchQueue(label: "parley.child-process.stdin")
            let writer = Task {
                let handle = stdin.fileHandleForWriting
                do {
                    for try await chunk in input {
                        let written: Bool = await withCheckedContinuation { done in
                            writes.async { done.resume(returning: (try? handle.write(contentsOf: chunk)) != nil) }
                        }
                        // The program stopped reading (it exited): its status says why.
                        if !written { break }
                    }
                } catch {
                    box.terminate()
                    continuation.finish(throwing: error)
                }
                writes.async { try? handle.close() }
            }
            DispatchQueue.global().async {
                let handle = stdout.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    continuation.yield(chunk)
                }
                errors.wait()
                process.waitUntilExit()
                writer.cancel()
                let status = process.terminationStatus
                if status == 0 {
                    continuation.finish()
                } else {
                    let message = String(decoding: errorData.get(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    continuation.finish(throwing: Failure.exited(executable, status, message))
                }
            }
            continuation.onTermination = { reason in
                if case .cancelled = reason { writer.cancel(); box.terminate() }
            }
            #else
            continuation.finish(throwing: Failure.unsupportedPlatform(executable))
            #endif
        }
    }
}

#if os(Linux) || os(macOS)
extension ChildProcess {
    /// Makes a write to a program that has exited fail with `EPIPE` rather than end this
    /// process (see `ignoreBrokenPipes`); for code that talks to a program itself.
    package static func stopBrokenPipeSignals() { _ = ignoreBrokenPipes }
}

/// A write to a program that has exited fails with `EPIPE` instead of the signal that would
/// end this process (the default for `SIGPIPE`); evaluated once, before the first child.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// A process handle shared with the cancellation handler; `Process` guards its own state.
private final class ProcessBox: @unchecked Sendable {
    private let process: Process
    init(_ process: Process) { self.process = process }
    func terminate() { if process.isRunning { process.terminate() } }
}
#endif

/// A lock-protected `Data` written by one queue and read by another.
private final class DataBox: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    func get() -> Data { data.withLock { $0 } }
}
