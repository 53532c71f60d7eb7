import ParleyCore

/// An output whose first reply plays until it is paused and resumed (or stopped): a reply the
/// user speaks over is still playing. Counts pauses and resumes; stopped, it reports
/// `heardOnStop` seconds.
public actor PausingOutput: AudioOutput {
    private let heardOnStop: Double
    private var reply = 0
    private var queued = 0.0
    private var released = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// Whether the first reply is playing (waiting in ``finish()``).
    public private(set) var holding = false
    /// How many times the output was paused.
    public private(set) var pauses = 0
    /// How many times it was resumed.
    public private(set) var resumes = 0

    /// Creates an output that reports `heardOnStop` seconds when stopped.
    public init(heardOnStop: Double) {
        self.heardOnStop = heardOnStop
    }

    public func beginReply() {
        reply += 1
        queued = 0
    }

    public func play(_ chunk: AudioBuffer) { queued += chunk.duration }

    public func stop() -> Double {
        release()
        return min(heardOnStop, queued)
    }

    public func finish() async -> Double {
        guard reply == 1, !released else { return queued }
        holding = true
        // The reply's task is cancelled when it is cut short: the wait ends with it.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if released || Task.isCancelled { continuation.resume() } else { waiter = continuation }
            }
        } onCancel: {
            Task { await self.release() }
        }
        holding = false
        return queued
    }

    public func pause() async { pauses += 1 }

    public func resume() async {
        resumes += 1
        release()
    }

    private func release() {
        released = true
        waiter?.resume()
        waiter = nil
    }

    /// Waits (yielding) until the first reply is playing.
    public func waitUntilHolding() async {
        while !holding { await Task.yield() }
    }
}
