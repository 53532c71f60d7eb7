extension AsyncThrowingStream where Failure == any Error, Element: Sendable {
    /// A stream fed by `body`, which runs in its own task: the stream finishes when `body`
    /// returns, and finishes with the error when it throws (a `CancellationError` ends it
    /// without one). When the consumer stops listening (it cancels its task, leaves the loop,
    /// or drops the stream), the task is cancelled, so `body` should stop at its next
    /// suspension point.
    ///
    /// ```swift
    /// AsyncThrowingStream.producing { continuation in
    ///     for try await line in lines { continuation.yield(parse(line)) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - bufferingPolicy: How many elements the stream holds for a slow consumer.
    ///   - onTermination: Called once when the stream ends, however it ends, before the task is
    ///     cancelled.
    ///   - body: Produces the elements; it may also finish the stream itself.
    public static func producing(
        bufferingPolicy: Continuation.BufferingPolicy = .unbounded,
        onTermination: (@Sendable (Continuation.Termination) -> Void)? = nil,
        _ body: @escaping @Sendable (Continuation) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream(Element.self, bufferingPolicy: bufferingPolicy) { continuation in
            let task = Task {
                do {
                    try await body(continuation)
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                onTermination?(termination)
                task.cancel()
            }
        }
    }
}
