/// What can go wrong in storage, by what the service must do about it.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name exists already, in any case.
    case nameTaken
    /// No user of that name.
    case unknownUser
    /// The database file is missing (and was not to be created).
    case missing(path: String)
    /// The database could not be opened or migrated.
    case cannotOpen(path: String, reason: String)
    /// SQLite failed: its extended result code (`SQLITE_FULL` is 13,
    /// `SQLITE_IOERR_FSYNC` 1034) and message.
    case sqlite(code: Int32, message: String)
    /// PostgreSQL answered with an error: its SQLSTATE (`23514`, a check
    /// constraint) and message.
    case postgres(sqlState: String, message: String)
    /// The database server could not be reached or went away (refused,
    /// closed, TLS): no answer to the call.
    case unreachable(String)
    /// The store is closed.
    case closed
    /// Anything else, in words.
    case failed(String)
    /// The call did not finish within the storage deadline; nothing it
    /// would have written is stored, or ever will be.
    case deadlineExceeded(seconds: Double)
    /// The database went away while a post's commit was under way, and
    /// whether it landed could not be learned in time. `PostTakeBack`
    /// settles it once the database answers (see `BlogStorage.claimPostToken`).
    case outcomeUnknown

    public var description: String {
        switch self {
        case .nameTaken: "name taken"
        case .unknownUser: "unknown user"
        case .missing(let path): "no database at \(path)"
        case .cannotOpen(let path, let reason): "cannot open database \(path): \(reason)"
        case .sqlite(let code, let message): "database failure: SQLite \(code): \(message)"
        case .postgres(let state, let message): "database failure: SQLSTATE \(state): \(message)"
        case .unreachable(let reason): "database unreachable: \(reason)"
        case .closed: "the database is closed"
        case .failed(let reason): "database failure: \(reason)"
        case .deadlineExceeded(let seconds): "no answer from the database within \(seconds) s"
        case .outcomeUnknown: "the database went away during a commit"
        }
    }
}

extension StorageError {
    /// `createToken` with a secret hash already stored. Two random 256-bit
    /// secrets never meet: this means the same secret was stored twice (a
    /// bug), so it is a failure, not an answer (`.nameTaken` is one).
    public static let tokenHashTaken = StorageError.failed("an access token with that secret hash exists")
}
