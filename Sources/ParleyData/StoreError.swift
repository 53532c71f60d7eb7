import Foundation

/// Why the conversation store could not do what was asked, with what to do about it.
///
/// Compare with the static values, e.g. `error == .threadNotFound(7)`.
public struct StoreError: Error, CustomStringConvertible, Equatable, Sendable {
    private enum Code: Equatable, Sendable {
        case threadNotFound(Int64)
        case messageNotFound(Int64)
        case stashItemNotFound(Int64)
        case materialNotFound(Int64)
        case cannotOpen(path: String, reason: String)
        case audioFileMissing(path: String)
        case cannotRemoveAudio(paths: [String], reason: String)
        case database(reason: String)
        case invalidDatabaseURL(reason: String)
        case invalidPoolSize(String)
        case cannotConnect(location: String, reason: String)
        case targetNotEmpty(location: String, owners: [String])
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// No thread has this id.
    public static func threadNotFound(_ id: Int64) -> StoreError { StoreError(.threadNotFound(id)) }

    /// No message has this id.
    public static func messageNotFound(_ id: Int64) -> StoreError { StoreError(.messageNotFound(id)) }

    /// No stash item has this id.
    public static func stashItemNotFound(_ id: Int64) -> StoreError { StoreError(.stashItemNotFound(id)) }

    /// No study material has this id.
    public static func materialNotFound(_ id: Int64) -> StoreError { StoreError(.materialNotFound(id)) }

    /// The database file could not be created, opened or brought up to date.
    public static func cannotOpen(path: String, reason: String) -> StoreError {
        StoreError(.cannotOpen(path: path, reason: reason))
    }

    /// An audio file to attach does not exist.
    public static func audioFileMissing(path: String) -> StoreError { StoreError(.audioFileMissing(path: path)) }

    /// Kept audio files could not be removed (the database change itself was made).
    public static func cannotRemoveAudio(paths: [String], reason: String) -> StoreError {
        StoreError(.cannotRemoveAudio(paths: paths, reason: reason))
    }

    /// The database failed a read or a write.
    public static func database(reason: String) -> StoreError { StoreError(.database(reason: reason)) }

    /// `PARLEY_DATABASE_URL` is not a PostgreSQL URL Parley can use. The reason never quotes
    /// the URL, which may hold a password.
    public static func invalidDatabaseURL(reason: String) -> StoreError { StoreError(.invalidDatabaseURL(reason: reason)) }

    /// `PARLEY_DATABASE_POOL_SIZE` is not a whole number of connections Parley accepts.
    public static func invalidPoolSize(_ value: String) -> StoreError { StoreError(.invalidPoolSize(value)) }

    /// The database server at `location` (a URL without its password) could not be reached,
    /// logged in to, or brought up to date.
    public static func cannotConnect(location: String, reason: String) -> StoreError {
        StoreError(.cannotConnect(location: location, reason: reason))
    }

    /// The database at `location` (a URL without its password) already holds rows of
    /// `owners` (``Owner/description``s, and `the spending ledger` when it holds charges), so a
    /// copy into it was refused and nothing was written.
    public static func targetNotEmpty(location: String, owners: [String]) -> StoreError {
        StoreError(.targetNotEmpty(location: location, owners: owners))
    }

    /// The database server could not be reached, logged in to, or brought up to date
    /// (``cannotConnect(location:reason:)``).
    public var isConnectionFailure: Bool {
        if case .cannotConnect = code { return true }
        return false
    }

    /// What went wrong, without the advice that ``description`` adds: why a database URL
    /// cannot be used, why a server could not be reached, or why a database failed; `nil` for
    /// the other errors. For a caller that names the setting itself (such as a command-line
    /// option).
    public var reason: String? {
        switch code {
        case .invalidDatabaseURL(let reason), .cannotConnect(_, let reason), .database(let reason), .cannotOpen(_, let reason): reason
        default: nil
        }
    }

    /// Whether the error says an id does not exist (a thread, message or stash item).
    public var isNotFound: Bool {
        switch code {
        case .threadNotFound, .messageNotFound, .stashItemNotFound, .materialNotFound: true
        default: false
        }
    }

    /// One sentence: what happened and what to do.
    public var description: String {
        switch code {
        case .threadNotFound(let id):
            "no conversation has id \(id): run `parley history` to list the conversations and their ids"
        case .messageNotFound(let id):
            "no message has id \(id): run `parley history show THREAD` to list a conversation's messages and their ids"
        case .stashItemNotFound(let id):
            "no stashed item has id \(id): list the stash to see the ids that exist"
        case .materialNotFound(let id):
            "no study material has id \(id): run `parley materials list` to see the materials and their ids"
        case .cannotOpen(let path, let reason):
            "cannot open the conversation database at \(path) (\(reason)): check that the directory is writable "
                + "and the file is a Parley database, or set PARLEY_HOME to another directory"
        case .audioFileMissing(let path):
            "the audio file \(path) does not exist: write the recording to disk before attaching it"
        case .cannotRemoveAudio(let paths, let reason):
            "could not remove the kept audio \(paths.joined(separator: ", ")) (\(reason)): "
                + "check the files' permissions and delete them by hand"
        case .database(let reason):
            "the conversation database failed (\(reason)): check that the disk has free space and the database "
                + "file is writable, then try again"
        case .invalidDatabaseURL(let reason):
            "PARLEY_DATABASE_URL cannot be used (\(reason)): write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE, "
                + "or unset it to keep conversations in the local SQLite file"
        case .invalidPoolSize(let value):
            "PARLEY_DATABASE_POOL_SIZE is '\(value)': set it to a whole number of connections from \(DatabaseURL.poolSizes.lowerBound) "
                + "to \(DatabaseURL.poolSizes.upperBound) (each server instance opens at most that many), or unset it for \(DatabaseURL.defaultPoolSize)"
        case .cannotConnect(let location, let reason):
            "cannot use the conversation database at \(location) (\(reason)): check that PostgreSQL is running there and "
                + "that PARLEY_DATABASE_URL names the right user, password and database"
        case .targetNotEmpty(let location, let owners):
            "the database at \(location) already holds conversations or other data of \(owners.joined(separator: ", ")), so nothing "
                + "was copied: copy into an empty database, or pass --into-nonempty to add the copy to what is there"
        }
    }
}
