import BlogWire

/// What the server answered, as one of the outcomes a caller acts on.
///
/// The wire reply depends on the operation (`reg:OK`, `log:OK`, `post:OK`
/// all mean `.ok`); this folds them together. docs/protocol.md's added error
/// replies keep a case each.
public enum BlogReply: Equatable, Sendable, CaseIterable {
    /// `reg:OK`, `log:OK` or `post:OK`: done.
    case ok
    /// `reg:NA`: that username exists already (in any case).
    case taken
    /// `log:NA` (unknown name or wrong password) or `post:NA` (unknown user,
    /// or the poster has not logged in from this address).
    case rejected
    /// `err:DB` or `post:ERR`: a failure on the server.
    case serverError
    /// `err:CMD`: the server does not know the command.
    case unknownCommand
    /// `err:ARGS`: wrong field count, a field outside the rules, invalid UTF-8.
    case badArguments
    /// `err:SIZE`: the message was over the server's size limit.
    case tooLarge
    /// `err:TIME`: no complete message arrived within the server's read timeout.
    case timedOut
    /// `err:BUSY`: the server's connection limit was reached.
    case busy

    /// Folds any wire reply into its outcome, whatever was asked.
    public init(_ reply: Reply) {
        switch reply {
        case .registered, .loggedIn, .posted, .postsListed, .edited, .deleted: self = .ok
        case .nameTaken: self = .taken
        case .loginRefused, .postRefused, .editRefused, .deleteRefused: self = .rejected
        case .databaseError, .postFailed: self = .serverError
        case .unknownCommand: self = .unknownCommand
        case .badArguments: self = .badArguments
        case .tooLarge: self = .tooLarge
        case .timedOut: self = .timedOut
        case .busy: self = .busy
        }
    }

    /// The outcome of `reply` when it answers `request`, or `nil` when the
    /// reply belongs to another command (say `log:OK` to a `register`).
    public init?(_ reply: Reply, answering request: Request) {
        switch (request, reply) {
        case (.register, .registered), (.register, .nameTaken),
             (.login, .loggedIn), (.login, .loginRefused),
             (.newPost, .posted), (.newPost, .postRefused), (.newPost, .postFailed),
             (.geoPost, .posted), (.geoPost, .postRefused), (.geoPost, .postFailed),
             (.listPosts, .postsListed), (.listPosts, .postRefused),
             (.editPost, .edited), (.editPost, .editRefused),
             (.deletePost, .deleted), (.deletePost, .deleteRefused),
             (_, .databaseError), (_, .unknownCommand), (_, .badArguments),
             (_, .tooLarge), (_, .timedOut), (_, .busy):
            self.init(reply)
        default:
            return nil
        }
    }

    /// Whether the request was carried out.
    public var isSuccess: Bool { self == .ok }
}
