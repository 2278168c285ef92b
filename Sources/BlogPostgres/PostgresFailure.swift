import BlogModel
import PostgresNIO

/// PostgreSQL errors as `StorageError`s, by what the service must do.
enum PostgresFailure {
    static let uniqueViolation = "23505"
    static let foreignKeyViolation = "23503"

    /// The constraint a caller can cause maps to its own case (a taken
    /// name, an unknown user); anything else is `.failed`, with the
    /// SQLSTATE so that an operator can look it up. PostgresNIO's own
    /// description hides everything, so the message is built here; it never
    /// holds the password, which no server error repeats.
    static func storageError(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        guard let error = error as? PSQLError else { return .failed("\(error)") }
        if let state = error.serverInfo?[.sqlState] {
            switch state {
            case uniqueViolation: return .nameTaken
            case foreignKeyViolation: return .unknownUser
            default: return .postgres(sqlState: state, message: error.serverInfo?[.message] ?? "no message")
            }
        }
        return .unreachable(reason(error))
    }

    /// Whether a transaction that failed with `error` may still have
    /// committed: its answer never came (the connection broke, the
    /// server shut down, the deadline passed). An error the server sent
    /// for a statement means it rolled the transaction back.
    static func mayHaveCommitted(_ error: StorageError) -> Bool {
        switch error {
        case .deadlineExceeded, .outcomeUnknown, .unreachable, .failed: return true
        case .nameTaken, .unknownUser, .unknownPhoto, .missing, .cannotOpen, .closed, .sqlite: return false
        case .postgres(let state, _):
            // Connection errors (class 08) and shutdowns (57P01-57P03)
            // end a session whatever its transaction had reached; any
            // other SQLSTATE is the server's answer to a statement.
            return state.hasPrefix("08") || state.hasPrefix("57P")
        }
    }

    /// A PostgresNIO error in words, for errors that do not come from the
    /// server (connection refused, closed, pool shut down).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let state = error.serverInfo?[.sqlState] {
            return "SQLSTATE \(state): \(error.serverInfo?[.message] ?? "no message")"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
