/// What one source's sync did.
public struct SourceSyncReport: Sendable, Equatable, Codable {
    /// The Drive folder, calendar or Gmail query.
    public var target: String
    /// Whether it was a full sync (the first, or after the increment token expired).
    public var full: Bool = false
    /// Items fetched from Google (files downloaded, events, messages read).
    public var fetched = 0
    /// Materials or assignments added.
    public var added = 0
    /// Materials or assignments replaced by a newer version.
    public var updated = 0
    /// Materials or assignments removed (deleted, trashed, cancelled, moved away).
    public var removed = 0
    /// Items left out, each with the reason.
    public var skipped: [String] = []
    /// Why the source failed, if it did; the others still ran.
    public var error: String?

    /// An empty report for `target`.
    public init(target: String) {
        self.target = target
    }
}

/// What a sync did, per source.
public struct GoogleSyncReport: Sendable, Equatable, Codable {
    /// Drive folder to materials.
    public var drive: SourceSyncReport?
    /// Calendar events to assignments.
    public var calendar: SourceSyncReport?
    /// Gmail messages to assignments.
    public var gmail: SourceSyncReport?
    /// Rate-limited requests retried after a backoff.
    public var backoffs = 0

    /// The sources' reports.
    public var sources: [SourceSyncReport] { [drive, calendar, gmail].compactMap { $0 } }
    /// Whether every source synced.
    public var succeeded: Bool { sources.allSatisfy { $0.error == nil } }

    /// An empty report.
    public init() {}
}

/// What a sync reports while it runs.
public enum GoogleSyncProgress: Sendable, Equatable {
    /// A source starts: `full` or incremental.
    case started(source: String, target: String, full: Bool)
    /// An item was handled (`done` of `total`).
    case item(source: String, done: Int, total: Int, name: String)
    /// A source finished.
    case finished(SourceSyncReport, source: String)
}
