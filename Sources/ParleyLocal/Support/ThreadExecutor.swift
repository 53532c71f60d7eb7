import Foundation

/// A serial executor that runs its jobs on one dedicated thread.
///
/// The engine actors (llama.cpp, whisper.cpp) use it so that seconds of synchronous C work
/// never occupy a thread of Swift's cooperative pool, which on a 2-core machine has only two.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    // The lock guards `jobs`; the condition wakes the thread when a job arrives.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the thread; it lives as long as the process (engines are long-lived).
    init(name: String) {
        let thread = Thread { [unowned self] in self.runLoop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

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

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
