import ParleyStore
import PostgresNIO

extension StoreError {
    /// The error itself when it is a ``StoreError`` (a call's own not-found, say, thrown
    /// inside a transaction), a lost or unreachable server as ``cannotConnect(location:reason:)``,
    /// anything else as ``database(reason:)`` with PostgreSQL's own words.
    static func wrappingPostgres(_ error: any Error, location: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresTransactionError {
            // The body's error decides; a failed BEGIN or COMMIT is the server's.
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
            if let cause { return wrappingPostgres(cause, location: location) }
        }
        if let error = error as? PostgresConversationStore.TimedOut {
            return .cannotConnect(location: location, reason: error.description)
        }
        if let error = error as? PSQLError, error.serverInfo == nil {
            return .cannotConnect(location: location, reason: postgresReason(error))
        }
        return .database(reason: postgresReason(error))
    }

    /// A short reason for `error`: the server's message (with its SQLSTATE) when it sent one,
    /// else what failed on the client's side. It never holds the connection's password.
    static func postgresReason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                return info[.sqlState].map { "\(message) [\($0)]" } ?? message
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if let error = error as? PostgresTransactionError {
            return (error.closureError ?? error.beginError ?? error.commitError).map(postgresReason) ?? "the transaction failed"
        }
        if let error = error as? StoreError { return error.description }
        return "\(error)"
    }
}
