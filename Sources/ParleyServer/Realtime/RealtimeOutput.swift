import ParleyCore

/// Where a realtime session's replies go: each chunk is handed on at once (to be sent as
/// `response.output_audio.delta`), and playback is reckoned as the client hears it, in real
/// time from the first chunk, so that a user who speaks up mid-reply cuts it short where they
/// did, and a reply counts as finished only once the client has had time to play it.
actor RealtimeOutput: AudioOutput {
    private let send: @Sendable (AudioBuffer) async -> Void
    private var timeline = PlaybackTimeline<ContinuousClock.Instant>()

    /// Creates an output that hands each chunk to `send`.
    init(send: @escaping @Sendable (AudioBuffer) async -> Void) {
        self.send = send
    }

    func beginReply() {
        timeline = PlaybackTimeline()
    }

    func play(_ chunk: AudioBuffer) async {
        timeline.enqueue(seconds: chunk.duration, at: .now)
        await send(chunk)
    }

    func stop() -> Double {
        // The timeline stays until the next reply: stopping twice reports the same.
        min(timeline.played(at: .now), timeline.queued)
    }

    func finish() async -> Double {
        if let end = timeline.finish {
            try? await ContinuousClock().sleep(until: end, tolerance: nil)
            if Task.isCancelled { return stop() }
        }
        return timeline.queued
    }
}
