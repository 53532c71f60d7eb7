import Foundation
import ParleyProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A program kept running that answers each line written to its standard input with lines on
/// its standard output (espeak-ng without `--stdin`), so that a short request does not pay for
/// starting the program. The end of an answer is found with a marker: after the request, a
/// line whose answer is known (learned when the program starts) is written, and the answer is
/// every line before that one's.
///
/// Not thread-safe: one caller at a time (``EspeakPhonemizer`` holds it under a lock). Reads
/// block the calling thread for at most ``timeout`` each. The program ends when this object
/// goes (its standard input closes, and it is terminated).
final class LineProcess {
    /// How long an answer's next bytes may take before the program is taken for stuck.
    static let timeout: Duration = .seconds(5)

    #if os(Linux) || os(macOS)
    private let process: Process
    private let input: FileHandle
    private let output: Int32
    private var buffered: [UInt8] = []
    private let marker: String
    private var markerAnswer: String = ""

    /// Starts `executable` with `arguments` and learns the answer to `marker` (a line of
    /// input no request contains); `nil` when the program does not start or answer.
    init?(executable: String, arguments: [String], marker: String) {
        ChildProcess.stopBrokenPipeSignals()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = stdout.fileHandleForReading.fileDescriptor
        self.marker = marker
        // Kept open by the pipe object: hold it for the reads.
        self.pipe = stdout
        guard write(marker + "\n"), let answer = readLine(), !answer.isEmpty else {
            stop()
            return nil
        }
        markerAnswer = answer
    }

    private let pipe: Pipe

    deinit { stop() }

    /// The lines the program answers `line` with (which must hold no line break), or `nil`
    /// when it has exited or got stuck (it is then stopped: make a new one).
    func answer(_ line: String) -> [String]? {
        guard process.isRunning, write(line + "\n" + marker + "\n") else {
            stop()
            return nil
        }
        var lines: [String] = []
        while true {
            guard let next = readLine() else {
                stop()
                return nil
            }
            if next == markerAnswer { return lines }
            lines.append(next)
        }
    }

    private func write(_ text: String) -> Bool {
        (try? input.write(contentsOf: Data(text.utf8))) != nil
    }

    /// The next line of output (without its line break), or `nil` at the end of the output or
    /// when nothing came within ``timeout``.
    private func readLine() -> String? {
        let deadline = ContinuousClock.now + Self.timeout
        while true {
            if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeSubrange(...end)
                return line
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    private func stop() {
        try? input.close()
        if process.isRunning { process.terminate() }
    }
    #else
    init?(executable: String, arguments: [String], marker: String) { nil }
    func answer(_ line: String) -> [String]? { nil }
    #endif
}
