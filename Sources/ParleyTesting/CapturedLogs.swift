import Logging
import Synchronization

/// Collects log records in memory so tests can check what was logged (e.g. that a fallback
/// was announced once, with its reason, and that no secret appeared).
public final class CapturedLogs: Sendable {
    /// One log record.
    public struct Record: Sendable, Equatable {
        public var level: Logger.Level
        public var message: String
    }

    private let stored = Mutex<[Record]>([])

    /// Creates an empty collection.
    public init() {}

    /// Everything logged so far.
    public var records: [Record] { stored.withLock { $0 } }

    /// The messages logged at `level`.
    public func messages(at level: Logger.Level) -> [String] {
        records.filter { $0.level == level }.map(\.message)
    }

    /// A logger that writes here (trace and above).
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in Handler(sink: self) }
    }

    fileprivate func append(_ record: Record) {
        stored.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let sink: CapturedLogs
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            sink.append(Record(level: event.level, message: event.message.description))
        }
    }
}
