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
    /// Any other failure of the database, in its own words (SQLite's
    /// result, PostgreSQL's SQLSTATE).
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
        case .failed(let reason): "database failure: \(reason)"
        case .deadlineExceeded(let seconds): "no answer from the database within \(seconds) s"
        case .outcomeUnknown: "the database went away during a commit"
        }
    }
}
