import Foundation
import ParleyStore
import Synchronization

/// A conversation store on a real SQLite file in a fresh temporary directory, with a clock the
/// test moves by hand. The directory is removed when the fixture goes away.
final class StoreFixture: Sendable {
    let directory: URL
    let clock = TestClock()
    let store: ConversationStore

    var databaseURL: URL { directory.appendingPathComponent("parley.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-store-tests-\(UUID().uuidString)", isDirectory: true)
        let clock = clock
        store = try ConversationStore(
            path: directory.appendingPathComponent("parley.sqlite"), now: { clock.now() })
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Opens another store on the same file, as a later process would.
    func reopen() throws -> ConversationStore {
        let clock = clock
        return try ConversationStore(path: databaseURL, now: { clock.now() })
    }

    /// Writes a small file standing for a kept recording and returns its URL.
    func makeAudioFile(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent("audio", isDirectory: true).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("RIFF....WAVE".utf8).write(to: url)
        return url
    }

    func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }
}

/// A clock that only moves when told to (whole milliseconds, as the database keeps them).
final class TestClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_700_000_000))

    func now() -> Date {
        date.withLock { $0 }
    }

    func advance(seconds: Double) {
        date.withLock { $0 += seconds }
    }
}
