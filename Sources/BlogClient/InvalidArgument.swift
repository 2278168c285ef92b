import BlogWire

/// Why the client refused to send a request: it would break docs/protocol.md's
/// rules, so the server could only answer `err:ARGS` (or worse, read it as
/// a different request).
public enum InvalidArgument: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field outside the rules, as BlogCore's validation reports it.
    case field(FieldError)
    /// A title cannot hold `:`; the server would end the title there.
    case colonInTitle
    /// No field may hold `[E];`; the server would end the message there.
    case terminatorInField

    public var description: String {
        switch self {
        case .field(let error): Self.describe(error)
        case .colonInTitle: "a title cannot contain ':'"
        case .terminatorInField: "no field may contain '\(Frame.terminatorString)'"
        }
    }

    private static func describe(_ error: FieldError) -> String {
        switch error {
        case .invalidUTF8: "the text is not valid UTF-8"
        case .wrongFieldCount: "wrong number of fields"
        case .emptyUsername: "the username is empty"
        case .usernameTooLong: "the username is longer than \(Username.maxLength) characters"
        case .usernameCharacters:
            "a username is made of A-Z a-z 0-9 _ - and starts with a letter or digit"
        case .emptyPassword: "the password is empty"
        case .passwordTooLong: "the password is longer than \(FieldRules.maxPasswordBytes) bytes"
        case .emptyTitle: "the title is empty"
        case .titleTooLong: "the title is longer than \(FieldRules.maxTitleCharacters) characters"
        case .controlCharacters: "control characters are not allowed"
        case .badPostID: "a post id is a whole number from 1, up to 18 digits"
        case .badCoordinate: "a latitude is a decimal from -90 to 90, a longitude from -180 to 180 (at most \(Place.maxDecimals) decimals)"
        case .contentTooLong(let maxBytes): "the text is longer than \(maxBytes) bytes"
        }
    }
}
