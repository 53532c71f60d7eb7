/// A speaker whose playback advances only as far as its driver pulls: a device callback, a pump
/// that writes to a player at the pace of a clock, or a simulated room that takes one
/// microphone frame's worth at a time. What is pulled is what was played, so it is also the
/// exact far-end reference for echo cancellation.
///
/// Replies are converted to ``sampleRate`` as they are queued. A paused reply gives silence and
/// keeps its place; ``finish()`` returns once the reply has been pulled to its end.
public actor PulledSpeaker: AudioOutput {
    /// The rate audio is pulled at.
    public nonisolated let sampleRate: Int
    private var queue: [Float] = []
    private var next = 0
    private var resampler: StreamingResampler?
    private var playing = false
    private var paused = false
    private var playedInReply = 0
    private var heardReply: [Float] = []
    private var recording: [Float] = []
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    /// Whether a cue (``playCue(_:)``) is playing.
    private var cueing = false

    /// A speaker pulled at `sampleRate`.
    public init(sampleRate: Int) {
        self.sampleRate = max(1, sampleRate)
    }

    public func beginReply() {
        // A reply cuts a cue short.
        if cueing {
            cueing = false
            wakeFinishWaiters()
        }
        queue.removeAll(keepingCapacity: true)
        next = 0
        resampler = nil
        playing = true
        paused = false
        playedInReply = 0
        heardReply = []
    }

    public func play(_ chunk: AudioBuffer) {
        guard playing, !chunk.isEmpty else { return }
        if chunk.sampleRate == sampleRate {
            queue.append(contentsOf: chunk.samples)
        } else {
            if resampler?.resampler.inputRate != chunk.sampleRate {
                resampler = StreamingResampler(from: chunk.sampleRate, to: sampleRate)
            }
            queue.append(contentsOf: resampler?.process(chunk.samples) ?? [])
        }
    }

    /// The next `count` samples played: the reply where it is, silence when none plays or it is
    /// paused.
    public func pull(_ count: Int) -> [Float] {
        guard count > 0 else { return [] }
        guard playing, !paused else { return [Float](repeating: 0, count: count) }
        let available = min(count, queue.count - next)
        var block = Array(queue[next..<(next + available)])
        next += available
        playedInReply += available
        heardReply += block
        if available < count { block += [Float](repeating: 0, count: count - available) }
        if next == queue.count { wakeFinishWaiters() }
        return block
    }

    /// Whether a reply is playing (begun, not yet finished or stopped), paused or not.
    public var isPlaying: Bool { playing }

    /// Whether playback is paused.
    public var isPaused: Bool { paused }

    public func stop() -> Double {
        let heard = Double(playedInReply) / Double(sampleRate)
        endReply()
        return heard
    }

    public func finish() async -> Double {
        while playing, next < queue.count || paused {
            if Task.isCancelled { return stop() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    if playing, next < queue.count || paused, !Task.isCancelled { finishWaiters.append(waiter) } else { waiter.resume() }
                }
            } onCancel: {
                Task { await self.wakeFinishWaiters() }
            }
        }
        if Task.isCancelled, playing { return stop() }
        let heard = Double(playedInReply) / Double(sampleRate)
        endReply()
        return heard
    }

    /// Plays `audio` (a chime) when no reply plays, without keeping it among the replies heard;
    /// returns once it has been pulled to its end, or at once when a reply plays already. A reply
    /// that begins meanwhile cuts it short.
    public func playCue(_ audio: AudioBuffer) async {
        guard !playing else { return }
        beginReply()
        cueing = true
        play(audio)
        while cueing, next < queue.count, !Task.isCancelled {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                if cueing, next < queue.count { finishWaiters.append(waiter) } else { waiter.resume() }
            }
        }
        // A reply took over: it is that reply's playback now.
        guard cueing else { return }
        cueing = false
        heardReply = []
        endReply()
    }

    public func pause() async { paused = true }

    public func resume() async {
        paused = false
        wakeFinishWaiters()
    }

    /// Every reply as heard, one after another with half a second of silence between them.
    public var heardAudio: AudioBuffer? { recording.isEmpty ? nil : AudioBuffer(samples: recording, sampleRate: sampleRate) }

    private func endReply() {
        if playing, !heardReply.isEmpty {
            if !recording.isEmpty { recording += [Float](repeating: 0, count: sampleRate / 2) }
            recording += heardReply
        }
        playing = false
        paused = false
        heardReply = []
        queue.removeAll(keepingCapacity: true)
        next = 0
        wakeFinishWaiters()
    }

    private func wakeFinishWaiters() {
        let waiters = finishWaiters
        finishWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
