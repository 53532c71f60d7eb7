import Foundation

/// Where a download stands.
public enum DownloadState: Sendable, Equatable {
    /// Not started.
    case idle
    /// Asking the server for the file's size and checking the disk.
    case checking
    /// Bytes arriving: `received` of `total` (when the server said).
    case downloading(received: Int64, total: Int64?)
    /// Checking the whole file's size and SHA-256.
    case validating
    /// Done: the file is in place and verified.
    case completed
    /// Stopped; `resumable` when the bytes so far were kept, so the next pull goes on from them.
    case failed(reason: String, resumable: Bool)
}

/// A report from a download in progress.
public struct DownloadEvent: Sendable, Equatable {
    /// The file being made (its final name).
    public var file: String
    /// Its state.
    public var state: DownloadState
    /// Bytes per second over the last few seconds, while downloading.
    public var bytesPerSecond: Double?

    /// Creates an event.
    public init(file: String, state: DownloadState, bytesPerSecond: Double? = nil) {
        self.file = file
        self.state = state
        self.bytesPerSecond = bytesPerSecond
    }

    /// Seconds left at the current rate, when both the total and the rate are known.
    public var secondsLeft: Double? {
        guard case .downloading(let received, let total?) = state, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(0, total - received)) / rate
    }
}

/// Receives download events; called from the downloading task, so it must be quick.
public typealias DownloadProgressHandler = @Sendable (DownloadEvent) -> Void
