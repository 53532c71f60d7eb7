import Foundation
import ParleyModels
import Synchronization

/// A one-line progress display for downloads on standard error: bytes of the whole pull, rate
/// and time left; redrawn in place on a terminal, a line every few seconds otherwise.
final class ProgressBar: Sendable {
    private struct State {
        var files: [String: (received: Int64, total: Int64?)] = [:]
        var rates: [String: Double] = [:]
        var total: Int64?
        var lastDraw = ContinuousClock.now - .seconds(60)
        var lastPhase = ""
    }

    private let state = Mutex(State())
    private let quiet: Bool
    private let interactive: Bool

    init(quiet: Bool) {
        self.quiet = quiet
        self.interactive = isatty(STDERR_FILENO) == 1
    }

    /// The size of the whole pull, when known in advance.
    var total: Int64? {
        get { state.withLock { $0.total } }
        set { state.withLock { $0.total = newValue } }
    }

    /// The handler to give the downloader.
    var handler: DownloadProgressHandler {
        { [self] event in self.update(event) }
    }

    private func update(_ event: DownloadEvent) {
        guard !quiet else { return }
        let line: String? = state.withLock { state in
            switch event.state {
            case .downloading(let received, let total):
                state.files[event.file] = (received, total)
                if let rate = event.bytesPerSecond { state.rates[event.file] = rate }
            case .completed:
                if let file = state.files[event.file], let total = file.total { state.files[event.file] = (total, total) }
                state.rates[event.file] = nil
            case .failed:
                state.rates[event.file] = nil
            case .checking where state.files.isEmpty:
                return phase("checking \(event.file)", &state)
            case .validating where !event.file.hasSuffix(".whl"):  // the model file, not each wheel
                return phase("verifying and assembling \(event.file)", &state)
            default:
                return nil
            }
            let now = ContinuousClock.now
            guard now - state.lastDraw >= (interactive ? .milliseconds(200) : .seconds(3)) else { return nil }
            state.lastDraw = now
            let received = state.files.values.reduce(Int64(0)) { $0 + $1.received }
            let total = state.total ?? state.files.values.reduce(Int64(0)) { $0 + ($1.total ?? 0) }
            let rate = state.rates.values.reduce(0, +)
            var text = "  \(ByteFormat.string(received))"
            if total > 0 {
                text += " of \(ByteFormat.string(total)) (\(min(100, Int(Double(received) * 100 / Double(total))))%)"
            }
            if rate > 0 {
                text += ", \(ByteFormat.string(Int64(rate)))/s"
                if total > received { text += ", \(Int((Double(total - received) / rate).rounded(.up))) s left" }
            }
            return text
        }
        guard let line else { return }
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }

    private func phase(_ text: String, _ state: inout State) -> String? {
        guard text != state.lastPhase else { return nil }
        state.lastPhase = text
        state.lastDraw = .now - .seconds(60)
        return interactive ? "\n" + text : text
    }

    /// Ends the display with `message` on standard output.
    func finish(_ message: String) {
        if !quiet, interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        print(message)
    }
}
