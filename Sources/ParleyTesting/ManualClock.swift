import Synchronization

/// A clock whose time moves only when a test says so, so timeouts, cool-downs and retries are
/// tested without real sleeping.
///
/// `sleep(until:)` suspends until ``advance(by:)`` moves the clock past the deadline or the
/// sleeping task is cancelled. ``sleepers`` lets a test wait until the code under test is
/// actually waiting before it moves time.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock's time line.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock's origin.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var current = Instant(offset: .zero)
        var waiting: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Creates a clock at time zero.
    public init() {}

    public var now: Instant { state.withLock { $0.current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    public var sleepers: Int { state.withLock { $0.waiting.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // A task cancelled before it got here has already run `onCancel`, which found
                // nothing to remove: it must not be left waiting (and counted in `sleepers`).
                enum Start { case wait, now, cancelled }
                let start: Start = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.current { return .now }
                    state.waiting.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .wait
                }
                switch start {
                case .wait: break
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled: Sleeper? = state.withLock { state in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.current = state.current.advanced(by: duration)
            let now = state.current
            let ready = state.waiting.filter { $0.deadline <= now }
            state.waiting.removeAll { $0.deadline <= now }
            return ready
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (yielding, not sleeping) until at least `count` tasks sleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        while sleepers < count { await Task.yield() }
    }
}
