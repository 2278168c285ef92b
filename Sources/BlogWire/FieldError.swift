/// Why a field of a message was refused; every case is answered `err:ARGS`.
public enum FieldError: Error, Equatable, Sendable {
    case invalidUTF8
    case wrongFieldCount
    case emptyUsername
    case usernameTooLong
    case usernameCharacters
    case emptyPassword
    case passwordTooLong
    case emptyTitle
    case titleTooLong
    case controlCharacters
    /// A post id that is not 1 to 18 decimal digits (and not zero).
    case badPostID
    /// A latitude or longitude that is not a plain decimal within range.
    case badCoordinate
    /// A post's text longer than the configured limit (`PostText`); on
    /// the blog port the frame's limit refuses such a message first.
    case contentTooLong(maxBytes: Int)
}
