import Foundation

/// One lane for the on-device engines' heavy computation: whisper.cpp's transcriptions and
/// llama.cpp's evaluations take turns, first come first served, instead of running at once.
///
/// ggml's worker threads spin while they wait for each other, and each engine already uses
/// every core; two engines computing at the same time (as several conversations on one
/// server do) slow each other down many times over, instead of each waiting a moment. A
/// token's evaluation takes milliseconds, so a transcription waits at most one token for the
/// language model, and the language model at most one transcription.
///
/// The work runs on the engines' own threads (never Swift's cooperative pool), so a turn is
/// waited for by blocking that thread.
public final class ComputeLane: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var issued = 0
    private var serving = 0

    /// The lane the on-device engines of this process share.
    public static let shared = ComputeLane()

    /// Creates a lane (tests make their own; engines use ``shared``).
    public init() {}

    /// Runs `work` when every caller that came before has finished.
    public func run<T>(_ work: () throws -> T) rethrows -> T {
        condition.lock()
        let ticket = issued
        issued += 1
        while serving != ticket { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
            serving += 1
            condition.broadcast()
            condition.unlock()
        }
        return try work()
    }
}
