/// A request from a client, parsed and validated.
public enum Request: Equatable, Sendable {
    case register(user: Username, password: String)
    case login(user: Username, password: String)
    case newPost(user: Username, title: String, content: String)

    /// The protocol's name for the command, for logs.
    public var command: String {
        switch self {
        case .register: "register"
        case .login: "login"
        case .newPost: "newpost"
        }
    }

    /// The user the request names.
    public var user: Username {
        switch self {
        case .register(let user, _), .login(let user, _), .newPost(let user, _, _): user
        }
    }
}

/// Why a message could not become a `Request`.
public enum RequestError: Error, Equatable, Sendable {
    /// The command is not one of `register`, `login`, `newpost`.
    case unknownCommand
    /// Wrong field count, a field outside its rules, or invalid UTF-8.
    case badArguments(FieldError)

    /// The reply PROTOCOL.md prescribes for this error.
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
        guard let text = String(validating: body, as: UTF8.self) else {
            throw .badArguments(.invalidUTF8)
        }
        let command = text.prefix { $0 != ":" }
        let rest = text.dropFirst(command.count + 1)
        let hasFields = command.count < text.count
        switch command {
        case "register", "login":
            guard hasFields else { throw .badArguments(.wrongFieldCount) }
            let fields = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2 else { throw .badArguments(.wrongFieldCount) }
            let user = try Self.validated { () throws(FieldError) in try Username(String(fields[0])) }
            let password = try Self.validated { () throws(FieldError) in try FieldRules.password(String(fields[1])) }
            self = command == "register"
                ? .register(user: user, password: password)
                : .login(user: user, password: password)
        case "newpost":
            guard hasFields else { throw .badArguments(.wrongFieldCount) }
            let fields = rest.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { throw .badArguments(.wrongFieldCount) }
            let user = try Self.validated { () throws(FieldError) in try Username(String(fields[0])) }
            let title = try Self.validated { () throws(FieldError) in try FieldRules.title(String(fields[1])) }
            let content = try Self.validated { () throws(FieldError) in try FieldRules.content(String(fields[2])) }
            self = .newPost(user: user, title: title, content: content)
        default:
            throw .unknownCommand
        }
    }

    private static func validated<T>(_ body: () throws(FieldError) -> T) throws(RequestError) -> T {
        do { return try body() } catch { throw .badArguments(error) }
    }
}
