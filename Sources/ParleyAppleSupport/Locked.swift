import Synchronization

/// A value behind a lock, in a class so that `@Sendable` closures can share it: Apple's
/// callbacks and `onTermination` handlers run on threads of the framework's choosing.
///
/// It holds values that are not `Sendable` too (a recognition task, a speech synthesizer, an
/// audio engine): the value goes in as `sending`, so nothing else keeps it, and the lock is the
/// only way to it afterwards, so it is never touched from two threads at once. Holding an object
/// here also keeps it alive until the holder lets it go (`$0 = nil`).
public final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    /// Holds `value`.
    public init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` on the value under the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending Result) throws(Failure) -> sending Result {
        try mutex.withLock(body)
    }
}
