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
    /// Photos to attach to a post cannot be: one is not stored, not the
    /// author's, on a post already, named twice, or one too many
    /// (`PostPhoto.maxPerPost`). Nothing is stored. An answer, not a failure.
    case unknownPhoto

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
        case .unknownPhoto: "a photo cannot be attached to the post"
        }
    }
}

extension StorageError {
    /// `createToken` with a secret hash already stored. Two random 256-bit
    /// secrets never meet: this means the same secret was stored twice (a
    /// bug), so it is a failure, not an answer (`.nameTaken` is one).
    public static let tokenHashTaken = StorageError.failed("an access token with that secret hash exists")

    /// `storePhoto` with a name stored already: two random 128-bit names
    /// never meet, so the same upload was stored twice (a bug).
    public static let photoNameTaken = StorageError.failed("a photo of that name exists")
}
