import BlogAuth
import BlogModel
import BlogWire
import Crypto
import Foundation

/// IndieAuth (the specification of 2022): the blog's address is its
/// user's identity, and an app that wants to post for the user gets a
/// token by sending the user to the authorization page, then trading the
/// code it gets back (with its PKCE verifier) at the token endpoint.
///
/// This holds what the authorization page (`WebClient`) and the token,
/// revocation and introspection endpoints (`IndieAuthEndpoints`) share:
/// the endpoints' addresses, the checks of a request, codes and their
/// redemption, and the per-address budget. Codes live in the database
/// (`AuthorizationCodeStorage`), so any instance may redeem one another
/// made; the tokens are the blog's own bearer tokens, labelled with the
/// app, listed and revoked as any other.
///
///     let indieAuth = IndieAuthServer(baseURL: "https://blog.example/", storage: store,
///                                     tokens: AccessTokens(storage: store))
///     let client = WebClient(backend: backend, indieAuth: indieAuth)
///     let endpoints = IndieAuthEndpoints(server: indieAuth)
public struct IndieAuthServer: Sendable {
    /// Where the public folder is served, ending in `/`: the issuer, and
    /// what every endpoint's and user's URL starts with.
    public let baseURL: String
    let storage: any BlogStorage
    let tokens: AccessTokens
    public let budget: IndieAuthBudget
    let clients: any ClientInfoSource
    let now: @Sendable () -> Date
    /// Seconds a code may wait to be redeemed.
    public let codeLifetime: Double

    public init(baseURL: String, storage: any BlogStorage, tokens: AccessTokens, budget: IndieAuthBudget = IndieAuthBudget(),
                clients: any ClientInfoSource = HostOnlyClientInfo(), codeLifetime: Double = 60,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.storage = storage
        self.tokens = tokens
        self.budget = budget
        self.clients = clients
        self.codeLifetime = codeLifetime
        self.now = now
    }

    public static let authorizationPath = "/app/auth"
    /// Where the authorization page's form goes (approve or deny): not the
    /// authorization endpoint itself, whose POST is an app redeeming a code.
    public static let approvalPath = "/app/auth/approve"
    public static let metadataPath = "/.well-known/oauth-authorization-server"
    public static let tokenPath = "/indieauth/token"
    public static let revocationPath = "/indieauth/revoke"
    public static let introspectionPath = "/indieauth/introspect"

    /// The issuer identifier (RFC 8414, RFC 9207): the blog's base URL, a
    /// prefix of the metadata's URL.
    public var issuer: String { baseURL }

    func url(_ path: String) -> String { baseURL + path.dropFirst() }

    /// The user's profile URL: their blog's main page.
    public func me(_ name: String) -> String { baseURL + name + ".html" }

    /// RFC 8414 metadata, with what IndieAuth 2022 adds.
    var metadata: [String: Any] {
        [
            "issuer": issuer,
            "authorization_endpoint": url(Self.authorizationPath),
            "token_endpoint": url(Self.tokenPath),
            "introspection_endpoint": url(Self.introspectionPath),
            "introspection_endpoint_auth_methods_supported": ["Bearer"],
            "revocation_endpoint": url(Self.revocationPath),
            "revocation_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": IndieAuthScope.offered,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": [PKCE.method],
            "authorization_response_iss_parameter_supported": true,
        ]
    }

    /// What the app's name and published redirect URIs are, as far as known.
    func clientInfo(_ clientID: ClientID) -> ClientInfo {
        clients.clientInfo(for: clientID) ?? .hostOnly(clientID)
    }

    /// A token's label: the client id, with the app's name before it when
    /// one is known besides its host and the whole fits a label (a cut
    /// label would lose the client id introspection reads back).
    func label(_ clientID: ClientID) -> String {
        let info = clientInfo(clientID)
        let named = "\(info.name) (\(clientID.text))"
        guard info.name != clientID.host, AccessTokens.label(named) == named else { return clientID.text }
        return named
    }

    /// The client id a token's label names (`label(_:)`), if any.
    static func clientID(fromLabel label: String) -> String? {
        if ClientID(label) != nil { return label }
        guard label.hasSuffix(")"), let open = label.range(of: " (", options: .backwards) else { return nil }
        let inner = String(label[open.upperBound..<label.index(before: label.endIndex)])
        return ClientID(inner) != nil ? inner : nil
    }

    // MARK: Codes

    /// A new code's secret: 32 random bytes, base64url (43 characters).
    static func makeCode() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// SHA-256 of a code, lower-case hex: what the database keeps.
    static func hash(_ code: String) -> String {
        SHA256.hash(data: Array(code.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A code as this server makes them: 43 characters of base64url.
    static func isWellFormedCode(_ code: String) -> Bool { PKCE.isChallenge(code) }

    /// Stores a code for what the user approved and returns its secret.
    func issueCode(_ request: AuthorizationRequest, userID: Int64, scopes: [String]) throws(StorageError) -> String {
        let code = Self.makeCode()
        let date = now()
        try storage.storeAuthorizationCode(AuthorizationCode(
            codeHash: Self.hash(code), userID: userID, clientID: request.clientID.text, redirectURI: request.redirectURI.text,
            scopes: scopes.joined(separator: " "), codeChallenge: request.codeChallenge, createdAt: date,
            expiresAt: date.addingTimeInterval(codeLifetime)))
        return code
    }

    /// What a redeemed code was for.
    struct Redeemed {
        var code: AuthorizationCode
        var user: UserRecord
        var clientID: ClientID
        var scopes: [String]
    }

    /// Redeems a code (`grant_type=authorization_code`, `code`,
    /// `client_id`, `redirect_uri`, `code_verifier`): every check is made
    /// before the code is claimed, so a refused request changes nothing.
    /// A code used already is refused, and when the request is otherwise
    /// right (the same app, with the verifier), the token the first use
    /// got is revoked (RFC 6749 section 4.1.2): the code or the app has
    /// leaked. `needsScope`: the token endpoint issues no token for a
    /// code granted no scope.
    func redeem(_ form: FormData, peerAddress: String, needsScope: Bool) throws(OAuthError) -> Redeemed {
        guard !form.isRefused else { throw .invalidRequest("The form was not understood.") }
        guard let grant = form["grant_type"] else { throw .invalidRequest("grant_type is missing.") }
        guard grant == "authorization_code" else {
            throw OAuthError(code: "unsupported_grant_type", description: "Only grant_type=authorization_code is supported.")
        }
        for name in ["code", "client_id", "redirect_uri"] where (form[name] ?? "").isEmpty {
            throw .invalidRequest("\(name) is missing.")
        }
        guard let verifier = form["code_verifier"], !verifier.isEmpty else {
            throw .invalidRequest("code_verifier is missing: PKCE (S256) is required.")
        }
        guard let clientID = ClientID(form["client_id"]!) else { throw OAuthError(code: "invalid_client", description: "client_id is not a valid client identifier.") }
        let text = form["code"]!
        func refuse(_ why: String) -> OAuthError {
            budget.chargeFailure(for: peerAddress)
            return .invalidGrant(why)
        }
        guard Self.isWellFormedCode(text) else { throw refuse("The code is not valid.") }
        let hash = Self.hash(text)
        let stored: AuthorizationCode?
        do {
            stored = try storage.authorizationCode(hash: hash)
        } catch {
            throw .unavailable
        }
        guard let stored else { throw refuse("The code is not valid.") }
        let matches = stored.clientID == clientID.text && stored.redirectURI == form["redirect_uri"]!
        let verified = matches && PKCE.verifies(verifier, stored.codeChallenge)
        if stored.usedAt != nil {
            if verified, let tokenID = stored.tokenID {
                _ = try? storage.deleteToken(id: tokenID, ofUserID: stored.userID)
            }
            throw refuse("The code was used already.")
        }
        guard stored.expiresAt > now() else { throw refuse("The code has expired.") }
        guard matches else { throw refuse("The code was not issued to this client_id and redirect_uri.") }
        guard verified else { throw refuse("The code_verifier does not match the code_challenge.") }
        let scopes = IndieAuthScope.words(stored.scopes)
        if needsScope && scopes.isEmpty {
            throw .invalidGrant("No scope was granted: redeem the code at the authorization endpoint for the profile URL.")
        }
        let user: UserRecord?
        let claim: AuthorizationCodeClaim
        do {
            user = try storage.user(id: stored.userID)
            guard let user, !user.suspended else { throw refuse("The user cannot sign in.") }
            claim = try storage.claimAuthorizationCode(hash: hash, at: now())
        } catch let error as OAuthError {
            throw error
        } catch {
            throw .unavailable
        }
        guard case .claimed(let code) = claim, let user else {
            // Another request (another instance) claimed it in between.
            throw refuse("The code was used already.")
        }
        return Redeemed(code: code, user: user, clientID: clientID, scopes: scopes)
    }

    /// The token endpoint's answer to a code: a new bearer token of the
    /// code's scopes, labelled with the app.
    func token(for redeemed: Redeemed) throws(OAuthError) -> [String: Any] {
        let secret: String
        do {
            let made = try tokens.issueBearer(userID: redeemed.user.id, scopeWords: redeemed.scopes,
                                              label: label(redeemed.clientID))
            secret = made.secret
            try storage.setAuthorizationCodeToken(hash: redeemed.code.codeHash, tokenID: made.token.id)
        } catch {
            throw .unavailable
        }
        var answer = identity(redeemed)
        answer["access_token"] = secret
        answer["token_type"] = "Bearer"
        answer["scope"] = redeemed.scopes.joined(separator: " ")
        return answer
    }

    /// `me`, and `profile` when the profile scope was granted: the blog
    /// settings' display name (else the user name) and photo, absolute.
    func identity(_ redeemed: Redeemed) -> [String: Any] {
        var answer: [String: Any] = ["me": me(redeemed.user.name)]
        if redeemed.scopes.contains(IndieAuthScope.profile) {
            // Settings that cannot be read leave the profile at the name.
            let settings = (try? storage.blogSettings(ofUserID: redeemed.user.id)) ?? .unset
            var profile = ["name": settings.authorName ?? redeemed.user.name, "url": me(redeemed.user.name)]
            if let photo = settings.authorPhoto { profile["photo"] = baseURL + photo }
            answer["profile"] = profile
        }
        return answer
    }
}
