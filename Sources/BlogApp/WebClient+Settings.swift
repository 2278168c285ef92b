import BlogModel
import BlogWeb
import HTTPTypes
import BlogAuth

/// The settings page: the user's Micropub tokens, made and revoked; the
/// sessions; the password.
extension WebClient {
    /// Scopes a token may be given here, as Micropub names them.
    static let offeredScopes = AccessTokens.Scope.allCases.map(\.rawValue)

    func settings(_ signedIn: SignedIn, newSecret: String?, error: String?, notice: String? = nil,
                  status: HTTPResponse.Status = .ok, blogForm typed: BlogForm? = nil) -> WebResponse {
        do {
            let tokens = try backend.tokens.list(ofUserID: signedIn.user.id).filter { $0.kind == .bearer }
            let blog = backend.setBlogSettings == nil ? nil : blogForm(signedIn, typed: typed)
            return .page(AppPages.settings(signedIn.viewer, tokens: tokens, newSecret: newSecret, error: error, notice: notice,
                                           scopes: Self.offeredScopes, passwordForm: backend.setPassword != nil,
                                           blogForm: blog), status: status)
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    func issueToken(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        let form = FormData(bytes: request.body)
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard !form.isRefused else { return settings(signedIn, newSecret: nil, error: Self.notUTF8, status: .badRequest) }
        let scopes = Set(form.all("scope").compactMap(AccessTokens.Scope.init(rawValue:)))
        guard !scopes.isEmpty else { return settings(signedIn, newSecret: nil, error: "Choose at least one scope.", status: .badRequest) }
        do {
            let (secret, _) = try backend.tokens.issue(userID: signedIn.user.id, kind: .bearer, scopes: scopes,
                                                       label: form["label"] ?? "", lifetime: nil)
            return settings(signedIn, newSecret: secret, error: nil)
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    func revokeToken(_ signedIn: SignedIn, id: Int64, _ request: WebRequest) -> WebResponse {
        guard CSRF.check(FormData(bytes: request.body)["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        do {
            _ = try backend.tokens.revoke(id: id, ofUserID: signedIn.user.id)
            return .redirect("/app/settings")
        } catch {
            return Self.unavailable(signedIn)
        }
    }
}

extension AppPages {
    static func settings(_ viewer: Viewer, tokens: [AccessToken], newSecret: String?, error: String?, notice: String?,
                         scopes: [String], passwordForm: Bool, blogForm: WebClient.BlogForm? = nil) -> [UInt8] {
        layout("Settings", viewer: viewer) { html in
            message(notice, kind: "notice", &html)
            message(error, kind: "error", &html)
            if let blogForm { blogFields(viewer, blogForm, &html) }
            html.raw("<p><a href=\"/app/settings/fediverse\" id=\"fediverse-settings\">Fediverse: followers and blocks</a></p>\n")
            html.raw("<h2>Micropub tokens</h2>\n<p>Apps that speak Micropub post with a token: endpoint <code>/micropub</code>.</p>\n")
            if let newSecret {
                html.raw("<p class=\"notice\" role=\"status\">Your new token, shown only now: <code id=\"new-token\">")
                html.text(newSecret)
                html.raw("</code></p>\n")
            }
            if tokens.isEmpty {
                html.raw("<p class=\"empty\">No tokens.</p>\n")
            } else {
                html.raw("<ul class=\"tokens\">\n")
                for token in tokens {
                    html.raw("<li>")
                    html.text(token.label)
                    html.raw(" <code>")
                    html.text(token.scopes)
                    html.raw("</code> <time>")
                    html.text(date(token.createdAt))
                    html.raw("</time> <form method=\"post\" action=\"/app/settings/tokens/\(token.id)/revoke\" class=\"inline\">")
                    csrfField(viewer.csrf, &html)
                    html.raw("<button type=\"submit\">Revoke</button></form></li>\n")
                }
                html.raw("</ul>\n")
            }
            html.raw("<h3>New token</h3>\n<form method=\"post\" action=\"/app/settings/tokens\" class=\"app-form\">")
            csrfField(viewer.csrf, &html)
            html.raw("<label for=\"label\">For</label><input id=\"label\" name=\"label\" maxlength=\"\(AccessTokens.maxLabelLength)\" placeholder=\"the app's name\">")
            html.raw("<fieldset><legend>May</legend>")
            for scope in scopes {
                html.raw("<label><input type=\"checkbox\" name=\"scope\" value=\"\(scope)\" checked> \(scope)</label>")
            }
            html.raw("</fieldset><button type=\"submit\" id=\"make-token\">Make a token</button></form>\n")
            html.raw("<h2>Sessions</h2>\n<p>Signed in on a computer you no longer use? End every session, this one too; tokens stay.</p>\n")
            html.raw("<form method=\"post\" action=\"/app/settings/sessions\" class=\"app-form\">")
            csrfField(viewer.csrf, &html)
            html.raw("<button type=\"submit\" id=\"log-out-everywhere\">Log out everywhere</button></form>\n")
            if passwordForm { passwordFields(viewer, &html) }
        }
    }

    /// The change of password: the old one, the new one twice.
    static func passwordFields(_ viewer: Viewer, _ html: inout HTML) {
        html.raw("<h2>Password</h2>\n<p>A new password ends every other session of yours and every login on the blog port; ")
        html.raw("Micropub tokens stay (revoke them above).</p>\n")
        html.raw("<form method=\"post\" action=\"/app/settings/password\" class=\"app-form\">")
        csrfField(viewer.csrf, &html)
        html.raw("<input type=\"text\" name=\"name\" autocomplete=\"username\" value=\"")
        html.text(viewer.name)
        html.raw("\" hidden>")
        html.raw("<label for=\"old-password\">Old password</label><input id=\"old-password\" name=\"old_password\" type=\"password\" required autocomplete=\"current-password\">")
        html.raw("<label for=\"new-password\">New password</label><input id=\"new-password\" name=\"new_password\" type=\"password\" required autocomplete=\"new-password\">")
        html.raw("<label for=\"new-password-again\">New password again</label><input id=\"new-password-again\" name=\"new_password_again\" type=\"password\" required autocomplete=\"new-password\">")
        html.raw("<button type=\"submit\" id=\"change-password\">Change password</button></form>\n")
    }
}
