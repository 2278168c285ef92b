import BlogModel
import BlogWeb
import Foundation
import HTTPTypes

/// The IndieAuth authorization endpoint (`/app/auth`): the page where the
/// signed-in user sees which app asks, chooses its scopes and approves or
/// denies; and the endpoint's own redemption of a code, for an app that
/// only wants to know who signed in (POST, `{"me": …}`).
extension WebClient {
    /// GET: the authorization page (or the login form first, then back here).
    func authorize(_ signedIn: SignedIn?, _ request: WebRequest, _ server: IndieAuthServer) -> WebResponse {
        guard server.budget.takeAuthorization(for: request.peerAddress) else { return Self.authorizationsSpent(server) }
        let parsed: AuthorizationRequest
        do {
            parsed = try AuthorizationRequest(FormData(query: request.query), server: server)
        } catch {
            return refused(error, signedIn, server)
        }
        guard let signedIn else {
            // Back to this very request once signed in (`loginReturn`).
            return .redirect("/app/login?next=" + RedirectURI.encode(IndieAuthServer.authorizationPath + "?" + request.query))
        }
        return authorizationPage(parsed, signedIn, server)
    }

    /// POST of the page's form: approve (a code, back to the app) or deny.
    func approve(_ signedIn: SignedIn, _ request: WebRequest, _ server: IndieAuthServer) -> WebResponse {
        let form = FormData(bytes: request.body)
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard server.budget.takeAuthorization(for: request.peerAddress) else { return Self.authorizationsSpent(server) }
        let parsed: AuthorizationRequest
        do {
            parsed = try AuthorizationRequest(form, server: server)
        } catch {
            return refused(error, signedIn, server)
        }
        switch form["decision"] {
        case "approve":
            let scopes = IndieAuthScope.granted(form.all("scope"))
            do {
                let code = try server.issueCode(parsed, userID: signedIn.user.id, scopes: scopes)
                return .redirect(parsed.answer([("code", code)], issuer: server.issuer))
            } catch {
                return Self.unavailable(signedIn)
            }
        case "deny":
            return .redirect(parsed.answer([("error", "access_denied")], issuer: server.issuer))
        default:
            return .page(AppPages.failure("Approve or deny: the form said neither.", viewer: signedIn.viewer), status: .badRequest)
        }
    }

    /// POST to the authorization endpoint by the app: a code for the
    /// user's profile URL (and profile), no token (section 5.3.2).
    func redeemAtAuthorization(_ request: WebRequest, _ server: IndieAuthServer) -> WebResponse {
        guard server.budget.takeAuthorization(for: request.peerAddress) else {
            return OAuthError.tooMany(server.budget.retryAfter).response
        }
        do throws(OAuthError) {
            let redeemed = try server.redeem(FormData(bytes: request.body), peerAddress: request.peerAddress, needsScope: false)
            return OAuthJSON.response(server.identity(redeemed))
        } catch {
            return error.response
        }
    }

    private func refused(_ refusal: AuthorizationRequest.Refusal, _ signedIn: SignedIn?, _ server: IndieAuthServer) -> WebResponse {
        if let location = refusal.location(issuer: server.issuer) { return .redirect(location) }
        guard case .page(let text) = refusal else { return .page(AppPages.notFound(signedIn?.viewer), status: .notFound) }
        return .page(AppPages.failure(text, viewer: signedIn?.viewer), status: .badRequest)
    }

    private func authorizationPage(_ request: AuthorizationRequest, _ signedIn: SignedIn, _ server: IndieAuthServer) -> WebResponse {
        var response = WebResponse.page(AppPages.authorization(signedIn.viewer, request: request,
                                                               me: server.me(signedIn.user.name)))
        // The form's answer redirects to the app: a browser holds a form's
        // redirects to `form-action` too (Chromium does), so the app's
        // origin joins 'self' on this page.
        let policy = response.headers[.contentSecurityPolicy] ?? ""
        response.headers[.contentSecurityPolicy] = policy.replacingOccurrences(
            of: "form-action 'self'", with: "form-action 'self' \(request.redirectURI.origin)")
        return response
    }

    static func authorizationsSpent(_ server: IndieAuthServer) -> WebResponse {
        .page(AppPages.failure("Too many sign-in requests from your address: wait a minute and try again.", viewer: nil),
              status: .tooManyRequests, extra: [.retryAfter: String(server.budget.retryAfter)])
    }

    /// Where a login goes on to (`next` in the login form's query or
    /// body): back to an authorization request that sent the user to log
    /// in, and nowhere else (no open redirect).
    static func loginReturn(_ request: WebRequest) -> String? {
        let next = FormData(query: request.query)["next"]
            ?? (request.method == .post ? FormData(bytes: request.body)["next"] : nil)
        return loginReturn(next)
    }

    static func loginReturn(_ next: String?) -> String? {
        guard let next, next.hasPrefix(IndieAuthServer.authorizationPath + "?"),
              !next.contains("\\"), next.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return next
    }
}

extension AppPages {
    /// "Sign in to APP?": who asks, as whom, where the answer goes, the
    /// scopes (those asked for ticked), approve or deny.
    static func authorization(_ viewer: Viewer, request: AuthorizationRequest, me: String) -> [UInt8] {
        layout("Sign in to \(request.client.name)", viewer: viewer) { html in
            html.raw("<p>The app <strong id=\"app-name\">")
            html.text(request.client.name)
            html.raw("</strong> (<code id=\"client-id\">")
            html.text(request.clientID.text)
            html.raw("</code>) asks to sign in as <strong>")
            html.text(me)
            html.raw("</strong>.</p>\n<p>You will be sent back to <code>")
            html.text(request.redirectURI.text)
            html.raw("</code>.</p>\n")
            if let asked = request.me, !asked.isEmpty, asked != me {
                html.raw("<p class=\"notice\">The app was given another address (<code>")
                html.text(asked)
                html.raw("</code>); approving signs it in as you.</p>\n")
            }
            html.raw("<form method=\"post\" action=\"\(IndieAuthServer.approvalPath)\" class=\"app-form\">")
            csrfField(viewer.csrf, &html)
            let hidden: [(String, String)] = [("response_type", "code"), ("client_id", request.clientID.text),
                                              ("redirect_uri", request.redirectURI.text), ("state", request.state),
                                              ("code_challenge", request.codeChallenge),
                                              ("code_challenge_method", PKCE.method), ("me", request.me ?? "")]
            for (name, value) in hidden {
                html.raw("<input type=\"hidden\" name=\"\(name)\" value=\"")
                html.text(value)
                html.raw("\">")
            }
            html.raw("<fieldset><legend>Allow it to</legend>")
            let asked = Set(request.requestedScopes)
            for scope in IndieAuthScope.offered {
                html.raw("<label><input type=\"checkbox\" name=\"scope\" value=\"\(scope)\" id=\"scope-\(scope)\"")
                html.raw(asked.contains(scope) ? " checked>" : ">")
                html.raw(" \(scope): \(Self.scopeMeaning(scope))</label>")
            }
            html.raw("</fieldset>")
            html.raw("<button type=\"submit\" name=\"decision\" value=\"approve\" id=\"approve\">Approve</button> ")
            html.raw("<button type=\"submit\" name=\"decision\" value=\"deny\" id=\"deny\">Deny</button></form>\n")
            html.raw("<p>You can revoke the app's token at any time in <a href=\"/app/settings\">Settings</a>.</p>\n")
        }
    }

    static func scopeMeaning(_ scope: String) -> String {
        switch scope {
        case "create": "publish posts"
        case "update": "edit your posts"
        case "delete": "delete and restore your posts"
        case "media": "upload photos"
        case "profile": "see your name, photo and blog address"
        default: scope
        }
    }
}
