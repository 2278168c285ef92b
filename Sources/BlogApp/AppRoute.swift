import HTTPTypes

/// Where a web client request goes: a pure function of its method and path.
enum AppRoute: Equatable {
    case home
    case showLogin, login
    case showRegister, register
    case logout
    case create
    case showEdit(Int64), edit(Int64)
    case delete(Int64)
    case trash, restore(Int64)
    case settings, issueToken, revokeToken(Int64), endSessions, changePassword
    case saveBlogSettings
    case script
    /// IndieAuth: the authorization page, the endpoint's own redemption
    /// of a code (an app's POST), the page's form.
    case authorize, redeemAuthorization, approveAuthorization
    case notFound
    case methodNotAllowed

    init(method: HTTPRequest.Method, path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropFirst()
        let get = method == .get || method == .head
        let post = method == .post
        func pick(_ onGet: AppRoute?, _ onPost: AppRoute?) -> AppRoute {
            if get, let onGet { return onGet }
            if post, let onPost { return onPost }
            return onGet == nil && onPost == nil ? .notFound : .methodNotAllowed
        }
        switch Array(parts) {
        case []: self = pick(.home, nil)
        case ["login"]: self = pick(.showLogin, .login)
        case ["register"]: self = pick(.showRegister, .register)
        case ["logout"]: self = pick(nil, .logout)
        case ["posts"]: self = pick(nil, .create)
        case ["app.js"]: self = pick(.script, nil)
        case ["trash"]: self = pick(.trash, nil)
        case ["settings"]: self = pick(.settings, nil)
        case ["settings", "tokens"]: self = pick(nil, .issueToken)
        case ["settings", "sessions"]: self = pick(nil, .endSessions)
        case ["settings", "password"]: self = pick(nil, .changePassword)
        case ["auth"]: self = pick(.authorize, .redeemAuthorization)
        case ["auth", "approve"]: self = pick(nil, .approveAuthorization)
        case ["settings", "blog"]: self = pick(nil, .saveBlogSettings)
        case let p where p.count == 4 && p[0] == "settings" && p[1] == "tokens" && p[3] == "revoke":
            self = Self.id(p[2]).map { pick(nil, .revokeToken($0)) } ?? .notFound
        case let p where p.count == 3 && p[0] == "posts" && p[2] == "edit":
            self = Self.id(p[1]).map { pick(.showEdit($0), .edit($0)) } ?? .notFound
        case let p where p.count == 3 && p[0] == "posts" && p[2] == "delete":
            self = Self.id(p[1]).map { pick(nil, .delete($0)) } ?? .notFound
        case let p where p.count == 3 && p[0] == "posts" && p[2] == "restore":
            self = Self.id(p[1]).map { pick(nil, .restore($0)) } ?? .notFound
        default: self = .notFound
        }
    }

    /// A post or token id: 1 to 18 digits, not zero.
    private static func id(_ text: Substring) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let id = Int64(text), id > 0 else { return nil }
        return id
    }
}
