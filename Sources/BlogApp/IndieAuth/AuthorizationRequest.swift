/// An IndieAuth authorization request (section 5.2), checked: what the
/// authorization page shows and its form sends back.
struct AuthorizationRequest {
    var clientID: ClientID
    var redirectURI: RedirectURI
    var state: String
    var codeChallenge: String
    /// The scope words the app asked for, as sent.
    var requestedScopes: [String]
    /// The profile URL the app was given, if it says (a hint only).
    var me: String?
    var client: ClientInfo

    /// The longest `state` taken: it comes back in a URL.
    static let maxStateLength = 1000

    /// Why a request is refused: `page` when the app cannot be trusted
    /// with a redirect (its client id or redirect URI is wrong: the user
    /// gets a page, never a redirect, so the page is no open redirect);
    /// `redirect` otherwise (RFC 6749 section 4.1.2.1), back to the
    /// app's own redirect URI with `error`.
    enum Refusal: Error {
        case page(String)
        case redirect(RedirectURI, error: String, description: String, state: String?)
    }

    /// Reads a request's fields (the query of the GET, or the page's form).
    init(_ form: FormData, server: IndieAuthServer) throws(Refusal) {
        guard !form.isRefused else { throw .page("The request was not understood.") }
        guard let clientText = form["client_id"], !clientText.isEmpty else { throw .page("The app sent no client_id.") }
        guard let clientID = ClientID(clientText) else {
            throw .page("The app's client_id is not a valid client identifier (an https or http URL with a path, no fragment, no user name).")
        }
        guard let redirectText = form["redirect_uri"], let redirectURI = RedirectURI(redirectText) else {
            throw .page("The app's redirect_uri is missing or not a valid URL.")
        }
        let client = server.clientInfo(clientID)
        guard clientID.sharesOrigin(with: redirectURI) || client.redirectURIs.contains(redirectURI.text) else {
            throw .page("The app asked to be answered at \(redirectURI.text), which is not on its own site (\(clientID.origin)): refused, so this page sends you nowhere.")
        }
        let state = form["state"]
        // A state too long to send back is not sent back.
        let echoed = state.flatMap { $0.utf8.count <= Self.maxStateLength ? $0 : nil }
        func refuse(_ error: String, _ description: String) -> Refusal {
            .redirect(redirectURI, error: error, description: description, state: echoed)
        }
        guard form["response_type"] == "code" else {
            throw refuse("unsupported_response_type", "response_type must be code.")
        }
        guard let state, !state.isEmpty, state.utf8.count <= Self.maxStateLength else {
            throw refuse("invalid_request", "state is missing or too long.")
        }
        guard let challenge = form["code_challenge"], !challenge.isEmpty else {
            throw refuse("invalid_request", "code_challenge is missing: PKCE (S256) is required.")
        }
        guard form["code_challenge_method"] == PKCE.method else {
            throw refuse("invalid_request", "code_challenge_method must be S256.")
        }
        guard PKCE.isChallenge(challenge) else {
            throw refuse("invalid_request", "code_challenge is not an S256 challenge.")
        }
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.state = state
        self.codeChallenge = challenge
        self.requestedScopes = IndieAuthScope.words(form["scope"])
        self.me = form["me"]
        self.client = client
    }

    /// Where the browser goes with the app's answer: the redirect URI with
    /// `fields`, the state and the issuer (RFC 9207) added.
    func answer(_ fields: [(String, String)], issuer: String) -> String {
        redirectURI.adding(fields + [("state", state), ("iss", issuer)])
    }
}

extension AuthorizationRequest.Refusal {
    /// The redirect of a refusal that has one.
    func location(issuer: String) -> String? {
        guard case .redirect(let uri, let error, let description, let state) = self else { return nil }
        var fields = [("error", error), ("error_description", description)]
        if let state { fields.append(("state", state)) }
        fields.append(("iss", issuer))
        return uri.adding(fields)
    }
}
