/// Starts consuming a stream and waits for its first element, so that a response's status
/// and headers can depend on how the work began (who answers, or an error with its own
/// status) while the rest goes out in the body.
///
/// The whole stream, first element included, is bounded by `deadline`: past it the head (if
/// still awaited) fails, the rest ends with `timeout`, and the source is cancelled. So is it
/// when the rest is abandoned (the client went away) or the waiting task is cancelled.
struct StreamHead<Element: Sendable>: Sendable {
    /// The first element; `nil` when the stream ended without one.
    let first: Element?
    /// Everything after it.
    let rest: AsyncThrowingStream<Element, any Error>

    private enum Head: Sendable {
        case element(Element)
        case end
        case failure(any Error)
    }

    /// Consumes `source` (made by `start`) until its first element arrives.
    static func start(
        deadline: ContinuousClock.Instant, timeout: any Error,
        _ source: @escaping @Sendable () -> AsyncThrowingStream<Element, any Error>
    ) async throws -> StreamHead {
        let (head, headSink) = AsyncStream.makeStream(of: Head.self, bufferingPolicy: .bufferingOldest(1))
        let (rest, restSink) = AsyncThrowingStream.makeStream(of: Element.self)
        let driver = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var started = false
                    do {
                        for try await element in source() {
                            if started {
                                restSink.yield(element)
                            } else {
                                started = true
                                headSink.yield(.element(element))
                            }
                        }
                        headSink.yield(.end)
                        restSink.finish()
                    } catch {
                        headSink.yield(.failure(error))
                        restSink.finish(throwing: error)
                    }
                }
                group.addTask {
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                    headSink.yield(.failure(timeout))
                    restSink.finish(throwing: timeout)
                }
                await group.next()
                group.cancelAll()
            }
            headSink.finish()
        }
        restSink.onTermination = { _ in driver.cancel() }
        let outcome = await withTaskCancellationHandler {
            var iterator = head.makeAsyncIterator()
            return await iterator.next()
        } onCancel: {
            driver.cancel()
        }
        switch outcome {
        case .element(let element): return StreamHead(first: element, rest: rest)
        case .end: return StreamHead(first: nil, rest: rest)
        case .failure(let error):
            driver.cancel()
            throw error
        case nil:
            driver.cancel()
            throw CancellationError()
        }
    }
}

/// Runs `operation`, throwing `timeout` if it has not finished by `deadline` (it is cancelled).
func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, timeout: any Error,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw timeout }
        return value
    }
}
