import AsyncHTTPClient
import ParleyCore

/// Runs `body` in a task that feeds an `AsyncThrowingStream`; cancelling the consumer cancels
/// the task, which drops the HTTP body stream and so closes the connection.
func streamingTask<Element: Sendable>(
    _ body: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) async throws -> Void
) -> AsyncThrowingStream<Element, any Error> {
    AsyncThrowingStream { continuation in
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
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// A provider's key from the environment, or `nil` when unset or empty.
func environmentValue(_ name: String, in environment: [String: String]) -> String? {
    guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
    return value
}

/// `base` without a trailing slash, followed by `path`.
func join(_ base: String, _ path: String) -> String {
    var base = base
    while base.hasSuffix("/") { base.removeLast() }
    return base + path
}

import Foundation
