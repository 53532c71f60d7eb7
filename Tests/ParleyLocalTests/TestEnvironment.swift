import Foundation
import ParleyCore
@testable import ParleyLocal
import Testing

/// Locates the models and reference data that scripts/setup installs. A missing file fails
/// the test with a message saying how to get it; these tests never skip.
enum TestEnvironment {
    static let paths = ParleyPaths.current()

    /// Starts `work` while another thread holds the shared compute lane, cancels it once it
    /// has had time to reach the lane and wait there, then frees the lane; returns its task.
    static func cancelledWhileTheLaneIsBusy<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> Task<T, any Error> {
        let (entered, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let holder = Thread {
            ComputeLane.shared.run {
                entered.signal()
                release.wait()
            }
        }
        holder.start()
        entered.wait()
        let waiting = Task { try await work() }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        release.signal()
        return waiting
    }

    static func require(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("Missing \(url.path): run scripts/setup first.", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return url
    }

    /// Lower-cased words without punctuation, for comparing transcripts.
    static func words(_ text: String) -> [String] {
        let cleaned = String(
            text.lowercased().map { (c: Character) -> Character in
                c.isLetter || c.isNumber || c == "'" ? c : " "
            })
        return cleaned.split(separator: " ").map { String($0) }
    }

    /// The words that carry meaning, in order: ``words(_:)`` without the short function words
    /// tiny.en confuses on espeak-ng's voice ("of" heard as "on" on some CPUs and not others).
    static func contentWords(_ text: String) -> [String] {
        let function: Set<String> = ["a", "an", "the", "of", "on", "in", "at", "to", "is", "it", "and", "for"]
        return words(text).filter { !function.contains($0) }
    }

    /// How many words must be inserted, removed or replaced to turn `heard` into `said`.
    static func wordEdits(_ heard: String, _ said: String) -> Int {
        let a = words(heard), b = words(said)
        var row = Array(0...b.count)  // edits from a[..<i] to each b[..<j]
        for i in a.indices {
            var next = [i + 1]
            for j in b.indices {
                next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (a[i] == b[j] ? 0 : 1)))
            }
            row = next
        }
        return row[b.count]
    }
}
