import BlogCore
import BlogWeb
import BlogWire
import HTTPTypes

/// A change of password from the settings page.
extension WebClient {
    /// Checks the old password as a login is checked (the same hash budget
    /// and failed-login throttle: a stolen session cookie guesses no
    /// faster than a stranger at the login form), then sets the new one,
    /// which ends every web session and blog-port lease of the user; this
    /// browser gets a new session. Micropub tokens stay.
    func changePassword(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        let form = FormData(bytes: request.body)
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard let setPassword = backend.setPassword, let user = signedIn.username else { return Self.unavailable(signedIn) }
        func again(_ error: String, _ status: HTTPResponse.Status) -> WebResponse {
            settings(signedIn, newSecret: nil, error: error, status: status)
        }
        guard !form.isRefused else { return again(Self.notUTF8, .badRequest) }
        let new = form["new_password"] ?? ""
        guard new == form["new_password_again"] ?? "" else {
            return again("The new password and its repetition differ; nothing was changed.", .badRequest)
        }
        let password: String
        do {
            password = try FieldRules.password(new)
        } catch {
            return again(Self.explain(error), .badRequest)
        }
        // An old password no login could have costs no hash.
        guard let old = try? FieldRules.password(form["old_password"] ?? "") else {
            return again(Self.wrongPassword, .forbidden)
        }
        let session = Session(peerAddress: request.peerAddress, grantsLease: false)
        switch backend.perform(.login(user: user, password: old), [], session).reply {
        case .loggedIn: break
        case .loginRefused: return again(Self.wrongPassword, .forbidden)
        case .busy: return again("Too many tries from your address: wait a minute and try again.", .tooManyRequests)
        default: return again(Self.failed, .serviceUnavailable)
        }
        do {
            try setPassword(user, password)
        } catch {
            return again(Self.failed, .serviceUnavailable)
        }
        return startSession(user, request, then: "/app/settings?done=password")
    }

    static let wrongPassword = "The old password is wrong; nothing was changed."
}
