/// The realtime connections open now, so that a graceful shutdown can let each finish the
/// turn in progress, save it and tell its client, before the server stops.
actor RealtimeSessions {
    private struct Open {
        var connection: RealtimeConnection
        var goAway: @Sendable () async -> Void
    }

    private var open: [Int: Open] = [:]
    private var last = 0

    /// How many connections are open.
    var count: Int { open.count }

    /// Registers a connection; `goAway` closes its WebSocket (after it has drained).
    func add(_ connection: RealtimeConnection, goAway: @escaping @Sendable () async -> Void) -> Int {
        last += 1
        open[last] = Open(connection: connection, goAway: goAway)
        return last
    }

    /// Forgets a connection that has ended.
    func remove(_ id: Int) {
        open[id] = nil
    }

    /// Lets every open connection finish its reply (each for at most `limit`), then closes them.
    func drainAll(limit: Duration) async {
        let draining = open.values
        await withTaskGroup(of: Void.self) { group in
            for session in draining {
                group.addTask {
                    await session.connection.drain(limit: limit)
                    await session.goAway()
                }
            }
        }
    }
}
