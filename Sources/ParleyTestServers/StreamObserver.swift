/// What a ``ScriptedServer`` saw: how many requests arrived, how many streamed responses the
/// client read to the end and how many it abandoned (a write failed because the connection
/// was closed, or the writing task was cancelled). Tests await these counts without polling.
public actor StreamObserver {
    /// A count a test can wait for.
    public enum Milestone: Sendable {
        /// Requests received in full.
        case requests
        /// Streamed responses abandoned by the client.
        case abandoned
    }

    /// A test waiting for a count to be reached.
    private struct Waiter {
        var id: Int
        var milestone: Milestone
        var count: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Requests received in full.
    public private(set) var requests = 0
    /// Streamed responses written to their end.
    public private(set) var completed = 0
    /// Streamed responses the client went away from before their end.
    public private(set) var abandoned = 0

    private var waiters: [Waiter] = []
    private var nextID = 0

    /// Creates an observer with nothing observed.
    public init() {}

    /// Records a request received in full, and wakes the tests waiting for it.
    func noteRequest() {
        requests += 1
        wake()
    }

    /// Records a stream the server wrote to its end.
    func noteCompleted() {
        completed += 1
    }

    /// Records a stream the client abandoned, and wakes the tests waiting for it.
    func noteAbandoned() {
        abandoned += 1
        wake()
    }

    /// Waits until `count` streams were abandoned. Returns `false` if that has not happened
    /// after `limit` — a bound against hanging, not a measure of speed: the wait ends as soon
    /// as the server notices the closed connection.
    public func waitForAbandoned(_ count: Int = 1, limit: Duration = .seconds(20)) async -> Bool {
        await wait(for: .abandoned, count, limit: limit)
    }

    /// Waits until `count` of `milestone` were observed, or `limit` passed (then `false`).
    public func wait(for milestone: Milestone, _ count: Int = 1, limit: Duration = .seconds(20)) async -> Bool {
        if value(of: milestone) >= count { return true }
        let id = nextID
        nextID += 1
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, milestone: milestone, count: count, continuation: continuation))
            Task {
                try? await Task.sleep(for: limit)
                self.expire(id)
            }
        }
    }

    private func value(of milestone: Milestone) -> Int {
        switch milestone {
        case .requests: requests
        case .abandoned: abandoned
        }
    }

    private func wake() {
        let reached = waiters.filter { $0.count <= value(of: $0.milestone) }
        waiters.removeAll { $0.count <= value(of: $0.milestone) }
        for waiter in reached { waiter.continuation.resume(returning: true) }
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }
}
