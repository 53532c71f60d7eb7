/// Where a conversation's replies are played: a speaker on a device, or a recording.
///
/// The conversation calls ``beginReply()`` just before a reply's first chunk, then
/// ``play(_:)`` for each chunk as soon as it is synthesized, then either ``finish()`` or, when
/// the reply is cut short (barge-in, cancel, stop), ``stop()``. A reply with no audio is not
/// begun. While the user speaks over a reply it is held with ``pause()`` until ``resume()``
/// (or cut with ``stop()``).
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
    /// Pauses the reply where it is (chunks played meanwhile wait); ``finish()`` waits on.
    func pause() async
    /// Resumes a paused reply where it paused.
    func resume() async
}

extension AudioOutput {
    /// An output that cannot pause plays on: the reply is still heard while it is held, and
    /// is cut or finished as usual. (An output that can declares its own `pause() async`: a
    /// synchronous one would lose to this default when called on the concrete type.)
    public func pause() async {}
    /// An output that cannot pause has nothing to resume.
    public func resume() async {}
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
    /// Callers of ``finish()`` waiting for the paused reply to resume.
    private var resumeWaiters: [CheckedContinuation<Void, Never>] = []

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
        timeline.resume(at: clock.now)
        wakeWaiters()
        return played
    }

    public func finish() async -> Double {
        while realtime {
            if timeline.isPaused {
                await waitForResume()
            } else if let end = timeline.finish {
                try? await clock.sleep(until: end, tolerance: nil)
                // Done unless it was paused meanwhile (and so ends later).
                if !timeline.isPaused, timeline.finish == end { break }
            } else {
                break
            }
            if Task.isCancelled { return stop() }
        }
        let played = timeline.queued
        keep(seconds: played)
        return played
    }

    /// Holds playback where it is (in real time; a recording read at full speed has nothing to
    /// hold: its replies count as played when queued).
    public func pause() async {
        guard realtime else { return }
        timeline.pause(at: clock.now)
    }

    public func resume() async {
        timeline.resume(at: clock.now)
        wakeWaiters()
    }

    /// Whether playback is paused.
    public var isPaused: Bool { timeline.isPaused }

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
