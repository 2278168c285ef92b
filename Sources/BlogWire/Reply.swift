/// A reply the server sends, exactly as docs/protocol.md spells it.
///
/// The first group is the original protocol of the iPhone client; the second
/// is what blogd adds. `bytes` is the wire form, terminator included.
public enum Reply: String, Sendable, CaseIterable {
    case registered = "reg:OK"
    case nameTaken = "reg:NA"
    case loggedIn = "log:OK"
    case loginRefused = "log:NA"
    case posted = "post:OK"
    case postFailed = "post:ERR"
    case databaseError = "err:DB"

    case postRefused = "post:NA"
    case unknownCommand = "err:CMD"
    case badArguments = "err:ARGS"
    case tooLarge = "err:SIZE"
    case timedOut = "err:TIME"
    case busy = "err:BUSY"

    /// The head of a list of posts; the whole reply is `postListing`.
    case postsListed = "posts:OK"
    case edited = "edit:OK"
    case editRefused = "edit:NA"
    case deleted = "del:OK"
    case deleteRefused = "del:NA"

    /// The reply as sent on the wire, with its `[E];` terminator.
    public var bytes: [UInt8] { Self.wireForms[self]! }

    /// Bytes on the wire, terminator included.
    public var byteCount: Int { bytes.count }

    private static let wireForms = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Array(($0.rawValue + Frame.terminatorString).utf8))
    })

    /// Parses one reply from its wire form (terminator optional).
    public init?(wire: some StringProtocol) {
        var text = String(wire)
        if text.hasSuffix(Frame.terminatorString) { text.removeLast(Frame.terminatorString.count) }
        self.init(rawValue: text)
    }
}

extension Reply {
    /// The reply to `posts:NAME`: `posts:OK:N`, then each post on a line of
    /// its own (`ID TAB DATE TAB TITLE`, each line after a line break),
    /// then the terminator, once:
    ///
    ///     posts:OK:2
    ///     17<TAB>2026-11-25T18:42:26Z<TAB>Second
    ///     16<TAB>2026-11-24T09:00:00Z<TAB>First[E];
    ///
    /// Titles hold no control characters (`FieldRules.title`), so a line
    /// break or a tab in one cannot break the list; a title cannot hold
    /// `[E];` either, since that would have ended the message that stored it.
    public static func postListing(_ posts: [(id: Int64, date: String, title: String)]) -> [UInt8] {
        var out = Array("\(Reply.postsListed.rawValue):\(posts.count)".utf8)
        for post in posts {
            out.append(0x0A)
            out += Array("\(post.id)\t\(post.date)\t\(post.title)".utf8)
        }
        out += Frame.terminator
        return out
    }

    /// Parses a `postListing` reply (terminator optional): the posts, or
    /// nil when it is not one.
    public static func parsePostListing(_ wire: some StringProtocol) -> [(id: Int64, date: String, title: String)]? {
        var text = String(wire)
        if text.hasSuffix(Frame.terminatorString) { text.removeLast(Frame.terminatorString.count) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let head = lines.removeFirst()
        let prefix = Reply.postsListed.rawValue + ":"
        guard head.hasPrefix(prefix), let count = Int(head.dropFirst(prefix.count)), count == lines.count else { return nil }
        var posts: [(id: Int64, date: String, title: String)] = []
        for line in lines {
            let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let id = Int64(parts[0]) else { return nil }
            posts.append((id, String(parts[1]), String(parts[2])))
        }
        return posts
    }

    /// Replies after which the server closes the connection, whatever its
    /// mode: the peer broke a limit, or must come back later.
    public var closesConnection: Bool {
        self == .tooLarge || self == .timedOut || self == .busy
    }
}
