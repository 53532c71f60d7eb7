import Synchronization

/// Waits for `work` at most `timeout`: its result, or `nil` when the time ran out first. The
/// work is not awaited past the deadline (an SDK call that ignores cancellation must not hold
/// the caller); it is cancelled and left to end on its own.
func firstAnswer<T: Sendable>(within timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
    let race = AnswerRace<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        let worker = Task {
            do {
                race.finish(.success(try await work()))
            } catch {
                race.finish(.failure(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            race.finish(.success(nil))
        }
        race.track([worker, timer])
    }
}

/// The one answer of ``firstAnswer(within:_:)``: the first ending resumes the caller and
/// cancels the other task; later ones are dropped.
private final class AnswerRace<T: Sendable>: Sendable {
    private struct State {
        var resume: CheckedContinuation<T?, any Error>?
        var tasks: [Task<Void, Never>] = []
        var ended = false
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T?, any Error>) {
        state.withLock { $0.resume = continuation }
    }

    func track(_ tasks: [Task<Void, Never>]) {
        let ended = state.withLock { current -> Bool in
            current.tasks = tasks
            return current.ended
        }
        if ended { tasks.forEach { $0.cancel() } }
    }

    func finish(_ result: Result<T?, any Error>) {
        let (resume, tasks) = state.withLock { current -> (CheckedContinuation<T?, any Error>?, [Task<Void, Never>]) in
            guard !current.ended, let resume = current.resume else { return (nil, []) }
            current.ended = true
            current.resume = nil
            return (resume, current.tasks)
        }
        guard let resume else { return }
        tasks.forEach { $0.cancel() }
        resume.resume(with: result)
    }
}
