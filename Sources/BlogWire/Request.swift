/// A request from a client, parsed and validated: every door (the blog
/// port, the web client, Micropub) hands the service one of these, and
/// its fields are values that cannot be invalid (`Username`, `Title`,
/// `PostText`, `Place`).
public enum Request: Equatable, Sendable {
    case register(user: Username, password: String)
    case login(user: Username, password: String)
    case newPost(user: Username, title: Title, content: PostText)
    /// `geopost:NAME:LAT:LON:TITLE:CONTENT`: a post with the place it was
    /// written; answered as `newpost`.
    case geoPost(user: Username, place: Place, title: Title, content: PostText)
    /// `posts:NAME`: the user's newest posts (id, date, title).
    case listPosts(user: Username)
    case editPost(user: Username, id: Int64, title: Title, content: PostText)
    case deletePost(user: Username, id: Int64)

    /// The protocol's name for the command, for logs.
    public var command: String {
        switch self {
        case .register: "register"
        case .login: "login"
        case .newPost: "newpost"
        case .geoPost: "geopost"
        case .listPosts: "posts"
        case .editPost: "editpost"
        case .deletePost: "delpost"
        }
    }

    /// The fields in wire order.
    public var fields: [String] {
        switch self {
        case .register(let user, let password), .login(let user, let password): [user.value, password]
        case .newPost(let user, let title, let content): [user.value, title.value, content.value]
        case .geoPost(let user, let place, let title, let content): [user.value, place.latitude, place.longitude, title.value, content.value]
        case .listPosts(let user): [user.value]
        case .editPost(let user, let id, let title, let content): [user.value, String(id), title.value, content.value]
        case .deletePost(let user, let id): [user.value, String(id)]
        }
    }

    /// The message body: the command and its fields joined by `:`, without
    /// the terminator; `Request(message:)` reads it back.
    public var messageBody: String {
        ([command] + fields).joined(separator: ":")
    }

    /// The user the request names.
    public var user: Username {
        switch self {
        case .register(let user, _), .login(let user, _), .newPost(let user, _, _), .geoPost(let user, _, _, _), .listPosts(let user),
             .editPost(let user, _, _, _), .deletePost(let user, _): user
        }
    }
}

/// Why a message could not become a `Request`.
public enum RequestError: Error, Equatable, Sendable {
    /// The command is not one the server knows.
    case unknownCommand
    /// Wrong field count, a field outside its rules, or invalid UTF-8.
    case badArguments(FieldError)

    /// The reply docs/protocol.md prescribes for this error.
    public var reply: Reply {
        switch self {
        case .unknownCommand: .unknownCommand
        case .badArguments: .badArguments
        }
    }
}

extension Request {
    /// Parses one message body (terminator already removed).
    ///
    /// Fields split on the first colons only: the last field keeps the rest
    /// of the message verbatim, so passwords and post text may hold `:`.
    public init(message body: [UInt8]) throws(RequestError) {
        guard String(validating: body, as: UTF8.self) != nil else {
            throw .badArguments(.invalidUTF8)
        }
        // Split the bytes, not Characters: a `:` followed by a combining
        // mark is one Character, yet still a separator on the wire. (The
        // byte 0x3A never occurs inside a multi-byte UTF-8 sequence.)
        let colon = UInt8(ascii: ":")
        let command = body.prefix { $0 != colon }
        let hasFields = command.count < body.count
        let rest = body.dropFirst(command.count + 1)
        func fields(_ count: Int) throws(RequestError) -> [String] {
            guard hasFields else { throw .badArguments(.wrongFieldCount) }
            let parts = rest.split(separator: colon, maxSplits: count - 1, omittingEmptySubsequences: false)
            guard parts.count == count else { throw .badArguments(.wrongFieldCount) }
            return parts.map { String(decoding: $0, as: UTF8.self) }
        }
        switch String(decoding: command, as: UTF8.self) {
        case "register", "login":
            let f = try fields(2)
            let user = try Self.validated { () throws(FieldError) in try Username(f[0]) }
            let password = try Self.validated { () throws(FieldError) in try FieldRules.password(f[1]) }
            self = command.first == UInt8(ascii: "r")
                ? .register(user: user, password: password)
                : .login(user: user, password: password)
        case "newpost":
            let f = try fields(3)
            let user = try Self.validated { () throws(FieldError) in try Username(f[0]) }
            let title = try Self.validated { () throws(FieldError) in try Title(f[1]) }
            let content = try Self.validated { () throws(FieldError) in try PostText(framed: f[2]) }
            self = .newPost(user: user, title: title, content: content)
        case "geopost":
            let f = try fields(5)
            let user = try Self.validated { () throws(FieldError) in try Username(f[0]) }
            let place = try Self.validated { () throws(FieldError) in try Place(latitude: f[1], longitude: f[2]) }
            let title = try Self.validated { () throws(FieldError) in try Title(f[3]) }
            let content = try Self.validated { () throws(FieldError) in try PostText(framed: f[4]) }
            self = .geoPost(user: user, place: place, title: title, content: content)
        case "posts":
            let f = try fields(1)
            self = .listPosts(user: try Self.validated { () throws(FieldError) in try Username(f[0]) })
        case "editpost":
            let f = try fields(4)
            let user = try Self.validated { () throws(FieldError) in try Username(f[0]) }
            let id = try Self.validated { () throws(FieldError) in try FieldRules.postID(f[1]) }
            let title = try Self.validated { () throws(FieldError) in try Title(f[2]) }
            let content = try Self.validated { () throws(FieldError) in try PostText(framed: f[3]) }
            self = .editPost(user: user, id: id, title: title, content: content)
        case "delpost":
            let f = try fields(2)
            let user = try Self.validated { () throws(FieldError) in try Username(f[0]) }
            let id = try Self.validated { () throws(FieldError) in try FieldRules.postID(f[1]) }
            self = .deletePost(user: user, id: id)
        default:
            throw .unknownCommand
        }
    }

    private static func validated<T>(_ body: () throws(FieldError) -> T) throws(RequestError) -> T {
        do { return try body() } catch { throw .badArguments(error) }
    }
}

extension Request {
    /// The commands the server knows.
    public enum Command: String, CaseIterable, Sendable {
        case register, login, newpost, posts, editpost, delpost, geopost

        /// Whether carrying it out may hash a password (scrypt).
        public var hashesPassword: Bool { self == .register || self == .login }

        fileprivate static let wireForms = allCases.map { ($0, Array($0.rawValue.utf8)) }
    }

    /// The command `body` starts with (followed by `:` or the end), if it
    /// is a known one: a cheap look at the first bytes, without parsing or
    /// validating the fields.
    public static func command(of body: [UInt8]) -> Command? {
        let end = body.firstIndex(of: UInt8(ascii: ":")) ?? body.endIndex
        let word = body[..<end]
        for (command, bytes) in Command.wireForms where bytes.count == word.count && bytes.elementsEqual(word) {
            return command
        }
        return nil
    }
}
