import BlogWire

/// The labels of `blogd_requests_total`: what a request was and what it
/// got, each a small fixed set, numbered so that the counters sit in a
/// table and a request finds its own by two array indexes, with no
/// string made or compared.
///
///     RequestLabels.command(.newpost)   // 2: "newpost"
///     RequestLabels.reply(.posted)      // its place in Reply.allCases: "post:OK"
enum RequestLabels {
    /// The commands, then `unknown` (a complete message naming no known
    /// command) and `none` (a reply with no message behind it: `err:SIZE`,
    /// `err:TIME`, a message cut off by the close).
    static let commands = Request.Command.allCases.map(\.rawValue) + ["unknown", "none"]
    static let unknownCommand = Request.Command.allCases.count
    static let noCommand = Request.Command.allCases.count + 1

    /// The reply as the wire starts it (`posts:OK`, not the list after it).
    static let replies = Reply.allCases.map(\.rawValue)

    /// `command`'s place in `commands`; nil is `unknown`.
    static func command(_ command: Request.Command?) -> Int {
        switch command {
        case .register: 0
        case .login: 1
        case .newpost: 2
        case .posts: 3
        case .editpost: 4
        case .delpost: 5
        case .geopost: 6
        case nil: unknownCommand
        }
    }

    /// `reply`'s place in `replies`.
    static func reply(_ reply: Reply) -> Int {
        switch reply {
        case .registered: 0
        case .nameTaken: 1
        case .loggedIn: 2
        case .loginRefused: 3
        case .posted: 4
        case .postFailed: 5
        case .databaseError: 6
        case .postRefused: 7
        case .unknownCommand: 8
        case .badArguments: 9
        case .tooLarge: 10
        case .timedOut: 11
        case .busy: 12
        case .postsListed: 13
        case .edited: 14
        case .editRefused: 15
        case .deleted: 16
        case .deleteRefused: 17
        }
    }
}
