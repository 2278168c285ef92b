import BlogCore
import BlogWeb
import HTTPTypes

/// The settings page: the user's Micropub tokens, made and revoked.
extension WebClient {
    /// Scopes a token may be given here, as Micropub names them.
    static let offeredScopes = AccessTokens.Scope.allCases.map(\.rawValue)

    func settings(_ signedIn: SignedIn, newSecret: String?, error: String?, status: HTTPResponse.Status = .ok) -> WebResponse {
        do {
            let tokens = try backend.tokens.list(ofUserID: signedIn.user.id).filter { $0.kind == .bearer }
            return .page(AppPages.settings(signedIn.viewer, tokens: tokens, newSecret: newSecret, error: error,
                                           scopes: Self.offeredScopes), status: status)
        } catch {
            return Self.unavailable(signedIn)
        }
    }

    func issueToken(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        let form = FormData(bytes: request.body)
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard !form.hasInvalidText else { return settings(signedIn, newSecret: nil, error: Self.notUTF8, status: .badRequest) }
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
    static func settings(_ viewer: Viewer, tokens: [AccessToken], newSecret: String?, error: String?, scopes: [String]) -> [UInt8] {
        layout("Settings", viewer: viewer) { html in
            message(error, kind: "error", &html)
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
        }
    }
}
