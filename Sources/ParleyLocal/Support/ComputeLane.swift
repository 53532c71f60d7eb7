import Foundation

/// One lane for the on-device engines' heavy computation: whisper.cpp's transcriptions and
/// llama.cpp's evaluations take turns, first come first served, instead of running at once.
///
/// ggml's worker threads spin while they wait for each other, and each engine already uses
/// every core; two engines computing at the same time (as several conversations on one
/// server do) slow each other down many times over, instead of each waiting a moment. A
/// token's evaluation takes milliseconds, so a transcription waits at most one token for the
/// language model, and the language model at most one transcription.
///
/// Work a listener is waiting for (a voice's audio) goes before everything waiting
/// (``run(urgent:announced:_:)``), and a caller that knows such work may follow its own (the language
/// model, whose words a voice speaks as soon as they make a chunk) leaves the lane free for a
/// moment first (``giveWay(for:longest:)``): a reply's first audio then waits for no token.
///
/// The work runs on the engines' own threads (never Swift's cooperative pool), so a turn is
/// waited for by blocking that thread.
public final class ComputeLane: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var issued = 0
    private var busy = false
    private var waiting: [(ticket: Int, urgent: Bool)] = []
    /// Urgent work announced (``expectUrgent()``) and not yet begun.
    private var expected = 0
    /// Whether urgent work was ever announced or run here: until then nothing gives way.
    private var servesUrgentWork = false

    /// The lane the on-device engines of this process share.
    public static let shared = ComputeLane()

    /// Creates a lane (tests make their own; engines use ``shared``).
    public init() {}

    /// Runs `work` when the lane is free and no caller before it is waiting (no urgent caller
    /// at all, unless this one is urgent too).
    /// - Parameters:
    ///   - urgent: work a listener is waiting for: it goes before every caller that is not.
    ///   - announced: whether this is the work an ``expectUrgent()`` announced: the announcement
    ///     ends as the work joins the queue, in one step, so that no one giving way sees neither.
    ///   - work: the computation.
    public func run<T>(urgent: Bool = false, announced: Bool = false, _ work: () throws -> T) rethrows -> T {
        condition.lock()
        let ticket = issued
        issued += 1
        waiting.append((ticket, urgent))
        if urgent { servesUrgentWork = true }
        if announced { expected = max(0, expected - 1) }
        while busy || nextTicket != ticket { condition.wait() }
        waiting.removeAll { $0.ticket == ticket }
        busy = true
        // Whoever gives way to urgent work may queue now.
        if urgent { condition.broadcast() }
        condition.unlock()
        defer {
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
        return try work()
    }

    /// The caller served next: the first urgent one, or the first.
    private var nextTicket: Int? { (waiting.first(where: \.urgent) ?? waiting.first)?.ticket }

    /// Announces urgent work that is about to ask for the lane (a voice preparing a sentence):
    /// ``giveWay(for:longest:)`` waits for it. End the announcement once: by running the work
    /// with `announced: true` (``run(urgent:announced:_:)``), or with ``withdrawUrgent()`` when it
    /// will not run.
    public func expectUrgent() {
        condition.lock()
        expected += 1
        servesUrgentWork = true
        condition.broadcast()
        condition.unlock()
    }

    /// Withdraws an announcement of ``expectUrgent()`` whose work will not run.
    public func withdrawUrgent() {
        condition.lock()
        expected = max(0, expected - 1)
        condition.broadcast()
        condition.unlock()
    }

    /// Leaves the lane free for `pause` (the time urgent work that the caller's last result
    /// set off needs to ask for it), and longer, up to `longest`, while urgent work is
    /// announced or waiting. Returns at once on a lane that has never served urgent work.
    /// - Returns: whether it waited.
    @discardableResult
    public func giveWay(for pause: Duration, longest: Duration) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard servesUrgentWork else { return false }
        let start = Date()
        let minimum = start.addingTimeInterval(Self.seconds(pause))
        let maximum = start.addingTimeInterval(Self.seconds(max(pause, longest)))
        while true {
            let now = Date()
            let urgentPending = expected > 0 || waiting.contains(where: \.urgent)
            if now >= maximum || (now >= minimum && !urgentPending) { return true }
            _ = condition.wait(until: urgentPending ? maximum : minimum)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
