import Foundation
import Logging
import ParleyCore
import ParleyRuntime

/// `parley talk --speaker CMD`: the replies played by a command that reads raw signed 16-bit
/// little-endian mono PCM at 22,050 Hz on its standard input (`aplay -q -f S16_LE -r 22050 -c 1
/// -t raw`), written at the pace of real time so that pausing and cutting a reply take effect at
/// once. What is written is also the far-end reference of `--echo-cancellation`.
final class TalkSpeaker {
    static let sampleRate = 22_050
    /// Audio written per step: 20 ms.
    static let block = sampleRate / 50

    /// The conversation's output.
    let output = PulledSpeaker(sampleRate: TalkSpeaker.sampleRate)
    private let process: Process
    private let pump: Task<Void, Never>

    /// Starts `command` (run by /bin/sh) and the pump that feeds it; `reference`, when given,
    /// gets every block as it is written.
    init(command: String, reference: FarEndBuffer?) throws {
        // A player that exits must not end Parley with SIGPIPE: the write fails instead.
        _ = signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardInput = pipe
        try process.run()
        self.process = process
        pump = Self.pump(output: output, into: pipe.fileHandleForWriting, reference: reference)
    }

    /// Writes what `output` plays to `sink`, 20 ms at a time at the pace of real time.
    private static func pump(output: PulledSpeaker, into sink: FileHandle, reference: FarEndBuffer?) -> Task<Void, Never> {
        Task.detached(priority: .userInitiated) {
            let clock = ContinuousClock()
            var due = clock.now
            while !Task.isCancelled {
                let samples = await output.pull(block)
                var bytes = Data(capacity: samples.count * 2)
                for sample in samples {
                    let value = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
                    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
                }
                do { try sink.write(contentsOf: bytes) } catch { break }
                await reference?.append(AudioBuffer(samples: samples, sampleRate: sampleRate))
                due = due.advanced(by: .milliseconds(20))
                try? await clock.sleep(until: due, tolerance: nil)
            }
            try? sink.close()
        }
    }

    /// Stops feeding the command and waits for it to end.
    func close() async {
        pump.cancel()
        await pump.value
        process.waitUntilExit()
    }

    /// The echo canceller and its reference for live input at `rate`, or nil (after a warning)
    /// when echo cancellation is not available here.
    static func echoCancellation(rate: Int, engine: EchoEngine?) -> (any EchoCanceller, FarEndBuffer)? {
        do {
            let logger = Logger(label: "parley.talk")
            return (try DeviceServices.echoCanceller(sampleRate: rate, engine: engine, startsCold: false, logger: logger), FarEndBuffer(sampleRate: rate))
        } catch {
            Logger(label: "parley.talk").warning("talk: echo cancellation is off: \(error)")
            return nil
        }
    }
}
