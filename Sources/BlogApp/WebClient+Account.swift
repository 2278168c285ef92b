import BlogCore
import BlogModel
import BlogWeb
import BlogWire
import HTTPTypes

/// Signing in and out.
extension WebClient {
    /// The user a request's session cookie belongs to.
    struct SignedIn {
        var user: UserRecord
        var token: AccessToken
        var secret: String

        var viewer: AppPages.Viewer { AppPages.Viewer(name: user.name, csrf: CSRF.token(forSession: secret)) }
        var username: Username? { try? Username(user.name) }
    }

    func signedIn(_ request: WebRequest) throws(StorageError) -> SignedIn? {
        guard let secret = Cookies(request.headers)[Self.sessionCookie(request)], !secret.isEmpty else { return nil }
        guard let (user, token) = try backend.tokens.verify(secret, kind: .session) else { return nil }
        return SignedIn(user: user, token: token, secret: secret)
    }

    /// The login or register form, with a fresh double-submit token.
    func accountForm(register: Bool, request: WebRequest, name: String = "", error: String? = nil,
                     status: HTTPResponse.Status = .ok) -> WebResponse {
        let token = CSRF.fresh()
        let cookie = Cookies.set(Self.formCookie(request), token, secure: request.secure, maxAge: nil, sameSite: "Strict")
        return .page(AppPages.account(register: register, name: name, error: error, formToken: token,
                                      open: backend.registrationOpen, next: Self.loginReturn(request)),
                     status: status, extra: [.setCookie: cookie])
    }

    func account(register: Bool, request: WebRequest) -> WebResponse {
        // Closed: nothing to check, nothing to hash.
        if register && !backend.registrationOpen {
            return accountForm(register: true, request: request, error: "Registration is closed.", status: .forbidden)
        }
        let form = FormData(bytes: request.body)
        let typed = form.isRefused ? "" : form["name"] ?? ""
        func again(_ error: String, _ status: HTTPResponse.Status) -> WebResponse {
            accountForm(register: register, request: request, name: typed, error: error, status: status)
        }
        guard let formToken = Cookies(request.headers)[Self.formCookie(request)],
              CSRF.same(form["csrf"] ?? "", formToken) else {
            return again("The form had expired: please send it again.", .forbidden)
        }
        let user: Username
        let password: String
        do {
            user = try Username(typed)
            password = try FieldRules.password(form["password"] ?? "")
        } catch {
            return again(Self.explain(error), .badRequest)
        }
        let session = Session(peerAddress: request.peerAddress, grantsLease: false)
        let reply = backend.perform(register ? .register(user: user, password: password) : .login(user: user, password: password),
                                    [], session).reply
        switch reply {
        case .registered, .loggedIn:
            return startSession(user, request, then: Self.loginReturn(request) ?? "/app/")
        case .nameTaken:
            return again(backend.registrationOpen ? "That name is taken." : "Registration is closed.", .conflict)
        case .loginRefused:
            return again("Wrong name or password.", .unauthorized)
        case .busy:
            return again("Too many tries from your address: wait a minute and try again.", .tooManyRequests)
        default:
            return again("The server could not do it now; try again in a moment.", .serviceUnavailable)
        }
    }

    /// A new session for this browser, then on to `location`.
    func startSession(_ user: Username, _ request: WebRequest, then location: String = "/app/") -> WebResponse {
        do {
            guard let record = try backend.storage.user(named: user.value) else {
                return accountForm(register: false, request: request, error: "No such user.", status: .unauthorized)
            }
            let (secret, _) = try backend.tokens.issue(userID: record.id, kind: .session, scopes: [], label: "web",
                                                       lifetime: Double(sessionLifetime))
            var headers: HTTPFields = [:]
            headers.append(HTTPField(name: .setCookie, value: Cookies.set(Self.sessionCookie(request), secret, secure: request.secure,
                                                                          maxAge: sessionLifetime)))
            headers.append(HTTPField(name: .setCookie, value: Cookies.set(Self.formCookie(request), "", secure: request.secure,
                                                                          maxAge: 0, sameSite: "Strict")))
            return .redirect(location, extra: headers)
        } catch {
            return .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: nil),
                         status: .serviceUnavailable)
        }
    }

    /// Ends this browser's session, or with `everywhere` every web session
    /// of the user (a browser left signed in elsewhere); Micropub tokens stay.
    func logout(_ signedIn: SignedIn?, _ request: WebRequest, everywhere: Bool = false) -> WebResponse {
        let clear: HTTPFields = [.setCookie: Cookies.set(Self.sessionCookie(request), "", secure: request.secure, maxAge: 0)]
        guard let signedIn else { return .redirect("/app/login", extra: clear) }
        guard CSRF.check(FormData(bytes: request.body)["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        do {
            if everywhere {
                _ = try backend.tokens.endSessions(ofUserID: signedIn.user.id)
            } else {
                _ = try backend.tokens.revoke(id: signedIn.token.id, ofUserID: signedIn.user.id)
            }
        } catch {
            return .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: signedIn.viewer),
                         status: .serviceUnavailable)
        }
        return .redirect("/app/login", extra: clear)
    }

    static func forged(_ signedIn: SignedIn) -> WebResponse {
        .page(AppPages.failure("The form had expired: go back, reload and send it again.", viewer: signedIn.viewer),
              status: .forbidden)
    }

    /// A field the protocol's rules refused, in words.
    static func explain(_ error: FieldError) -> String {
        switch error {
        case .emptyUsername, .usernameTooLong, .usernameCharacters:
            "A name is 1 to 32 letters, digits, _ or -, starting with a letter or digit."
        case .emptyPassword: "Type a password."
        case .passwordTooLong: "A password is at most 256 bytes."
        case .emptyTitle: "A post needs a title."
        case .titleTooLong: "A title is at most 200 characters."
        case .controlCharacters: "The text holds control characters."
        case .badCoordinate: "A place is a latitude from -90 to 90 and a longitude from -180 to 180, as decimals."
        case .badPostID, .invalidUTF8, .wrongFieldCount: "The form was not understood."
        case .contentTooLong(let maxBytes): "The text is longer than \(WebRefusal.size(maxBytes))."
        }
    }
}
