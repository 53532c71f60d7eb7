import Foundation
import GRDB

extension StoreError {
    /// The error itself when it is a ``StoreError``, otherwise a database error that keeps
    /// SQLite's own words.
    static func wrapping(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        return .database(reason: reason(error))
    }

    /// A short reason for `error`: SQLite's message for database errors.
    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
        if let error = error as? StoreError {
            return error.description
        }
        return error.localizedDescription
    }
}
