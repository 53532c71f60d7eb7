import ParleyCore

/// Where a realtime session's replies go: each chunk is handed on at once (to be sent as
/// `response.output_audio.delta`), and playback is reckoned as the client hears it, in real
/// time from the first chunk, so that a user who speaks up mid-reply cuts it short where they
/// did, and a reply counts as finished only once the client has had time to play it.
///
/// While the reply is paused (the user speaks over it) its chunks are held back, and playback
/// is reckoned as paused too (the client pauses on `parley.response.paused`); resumed, the held
/// chunks go out in order.
actor RealtimeOutput: AudioOutput {
    private let send: @Sendable (AudioBuffer) async -> Void
    private var timeline = PlaybackTimeline<ContinuousClock.Instant>()
    /// Chunks held back while paused, or while held ones are still being sent.
    private var held: [AudioBuffer] = []
    private var flushing = false
    private var resumeWaiters: [CheckedContinuation<Void, Never>] = []
    /// The far-end reference of the session's echo cancellation, when it asked for it.
    private let echo: RealtimeEcho?

    /// Creates an output that hands each chunk to `send` (and to `echo` as the reference).
    init(echo: RealtimeEcho? = nil, send: @escaping @Sendable (AudioBuffer) async -> Void) {
        self.echo = echo
        self.send = send
    }

    private func sendPlayed(_ chunk: AudioBuffer) async {
        await send(chunk)
        await echo?.played(chunk)
    }

    func beginReply() {
        timeline = PlaybackTimeline()
        held.removeAll()
    }

    func play(_ chunk: AudioBuffer) async {
        timeline.enqueue(seconds: chunk.duration, at: .now)
        guard !timeline.isPaused, !flushing, held.isEmpty else {
            held.append(chunk)
            return
        }
        await sendPlayed(chunk)
    }

    func stop() async -> Double {
        // The timeline stays until the next reply: stopping twice reports the same.
        let played = min(timeline.played(at: .now), timeline.queued)
        held.removeAll()
        if timeline.isPaused {
            timeline.resume(at: .now)
            wakeWaiters()
        }
        await echo?.stopped()
        return played
    }

    func finish() async -> Double {
        while true {
            if timeline.isPaused {
                await waitForResume()
            } else if let end = timeline.finish {
                try? await ContinuousClock().sleep(until: end, tolerance: nil)
                if !timeline.isPaused, timeline.finish == end { break }
            } else {
                break
            }
            if Task.isCancelled { return await stop() }
        }
        return timeline.queued
    }

    func pause() async {
        timeline.pause(at: .now)
        await echo?.stopped()
    }

    func resume() async {
        guard timeline.isPaused else { return }
        timeline.resume(at: .now)
        wakeWaiters()
        guard !flushing else { return }
        flushing = true
        while !held.isEmpty, !timeline.isPaused {
            let chunk = held.removeFirst()
            await sendPlayed(chunk)
        }
        flushing = false
    }

    private func waitForResume() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                if timeline.isPaused, !Task.isCancelled { resumeWaiters.append(waiter) } else { waiter.resume() }
            }
        } onCancel: {
            Task { await self.wakeWaiters() }
        }
    }

    private func wakeWaiters() {
        let waiters = resumeWaiters
        resumeWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
