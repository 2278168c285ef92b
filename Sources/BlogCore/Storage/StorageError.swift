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
    /// Any other SQLite failure.
    case failed(String)

    public var description: String {
        switch self {
        case .nameTaken: "name taken"
        case .unknownUser: "unknown user"
        case .missing(let path): "no database at \(path)"
        case .cannotOpen(let path, let reason): "cannot open database \(path): \(reason)"
        case .failed(let reason): "database failure: \(reason)"
        }
    }
}
