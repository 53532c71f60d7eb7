import Foundation

/// A serial executor that runs its jobs on one dedicated thread.
///
/// The engine actors (llama.cpp, whisper.cpp) use it so that seconds of synchronous C work
/// never occupy a thread of Swift's cooperative pool, which on a 2-core machine has only two.
/// The thread ends when the executor is released (its actor's last job has run by then,
/// because every job keeps its actor, and so this executor, alive).
final class ThreadExecutor: Sendable {
    private let queue: JobQueue

    /// Starts the thread.
    init(name: String) {
        let queue = JobQueue()
        self.queue = queue
        // The thread owns the queue, not this object: releasing the executor stops the
        // thread instead of leaving it to read a freed object.
        let thread = Thread { queue.runLoop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit { queue.stop() }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        queue.asUnownedSerialExecutor()
    }
}

/// The jobs of a ``ThreadExecutor`` and the loop its thread runs.
private final class JobQueue: SerialExecutor, @unchecked Sendable {
    // `condition` guards `jobs` and `stopped`, and wakes the thread when either changes.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Ends the loop once the jobs already queued have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
