/// Where a conversation's replies are played: a speaker on a device, or a recording.
///
/// The conversation calls ``beginReply()`` just before a reply's first chunk, then
/// ``play(_:)`` for each chunk as soon as it is synthesized, then either ``finish()`` or, when
/// the reply is cut short (barge-in, cancel, stop), ``stop()``. A reply with no audio is not
/// begun.
public protocol AudioOutput: Sendable {
    /// Starts a new reply.
    func beginReply() async
    /// Queues a chunk of the reply; returns at once (playback runs on).
    func play(_ chunk: AudioBuffer) async
    /// Stops the reply now and returns how many seconds of it the listener heard.
    func stop() async -> Double
    /// Waits until the reply has played to its end (returning early if the waiting task is
    /// cancelled) and returns how many seconds were heard.
    func finish() async -> Double
}

/// An ``AudioOutput`` that records what the listener heard into one buffer (replies
/// separated by half a second of silence), for `parley talk --output` and for tests.
///
/// With `realtime`, playback takes as long as the audio lasts on `clock`, so a user who speaks
/// up mid-reply cuts it short and the recording keeps only the part that was played. Without
/// it, every reply counts as played in full the moment it is queued.
public actor RecordingOutput<C: Clock>: AudioOutput where C.Instant.Duration == Swift.Duration {
    private let clock: C
    private let realtime: Bool
    private var timeline = PlaybackTimeline<C.Instant>()
    private var reply: AudioBuffer?
    private var recording: AudioBuffer?

    /// Creates an output that paces playback on `clock` when `realtime` is set.
    public init(clock: C, realtime: Bool) {
        self.clock = clock
        self.realtime = realtime
    }

    public func beginReply() {
        timeline = PlaybackTimeline()
        reply = nil
    }

    public func play(_ chunk: AudioBuffer) {
        timeline.enqueue(seconds: chunk.duration, at: clock.now)
        if reply == nil { reply = chunk } else { reply?.appendConverting(chunk) }
    }

    public func stop() -> Double {
        let played = realtime ? timeline.played(at: clock.now) : timeline.queued
        keep(seconds: played)
        return played
    }

    public func finish() async -> Double {
        if realtime, let end = timeline.finish {
            try? await clock.sleep(until: end, tolerance: nil)
            if Task.isCancelled { return stop() }
        }
        let played = timeline.queued
        keep(seconds: played)
        return played
    }

    /// Everything heard so far.
    public var heardAudio: AudioBuffer? { recording }

    private func keep(seconds: Double) {
        guard let reply else { return }
        self.reply = nil
        let heard = reply.slice(0..<Int((seconds * Double(reply.sampleRate)).rounded()))
        guard !heard.isEmpty else { return }
        if var all = recording {
            all.samples += [Float](repeating: 0, count: all.sampleRate / 2)
            all.appendConverting(heard)
            recording = all
        } else {
            recording = heard
        }
    }
}
