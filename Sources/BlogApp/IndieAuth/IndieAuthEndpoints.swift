import BlogAuth
import BlogModel
import BlogWeb
import Foundation
import HTTPTypes

/// The IndieAuth endpoints an app calls itself, JSON in and out: the
/// metadata (`/.well-known/oauth-authorization-server`, RFC 8414), the
/// token endpoint (a code and its PKCE verifier for a bearer token), and
/// revocation (RFC 7009) and introspection (RFC 7662). The authorization
/// page, which a person sees, is the web client's (`WebClient`).
///
/// Every request takes one from its address's token-request budget; a
/// refused code or verifier costs more (`IndieAuthBudget`). Every
/// refusal is an OAuth JSON error and changes nothing.
///
///     curl -d grant_type=authorization_code -d code=… -d client_id=https://app.example/ \
///          -d redirect_uri=https://app.example/callback -d code_verifier=… https://blog.example/indieauth/token
public struct IndieAuthEndpoints: WebApplication {
    let server: IndieAuthServer

    public init(server: IndieAuthServer) {
        self.server = server
    }

    /// A token request is a handful of short fields: 8 KiB is far more.
    public static let maxBody = 8192

    public func handles(path: String) -> Bool {
        path == IndieAuthServer.metadataPath || path == IndieAuthServer.tokenPath
            || path == IndieAuthServer.revocationPath || path == IndieAuthServer.introspectionPath
    }

    public func bodyLimit(path: String) -> Int { Self.maxBody }

    /// The server's own refusals (a body over the limit, a slow one) as
    /// OAuth errors.
    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse {
        OAuthError(status: refusal.status, code: "invalid_request", description: refusal.text,
                   retryAfter: refusal.retryAfter).response
    }

    public func respond(to request: WebRequest) -> WebResponse {
        if request.path == IndieAuthServer.metadataPath {
            guard request.method == .get || request.method == .head else { return Self.methodNotAllowed("GET") }
            var response = OAuthJSON.response(server.metadata)
            // Public and the same for everyone: caches may keep it a while.
            response.headers[.cacheControl] = "public, max-age=300"
            response.headers[HTTPField.Name("Pragma")!] = nil
            return response
        }
        guard request.method == .post else { return Self.methodNotAllowed("POST") }
        guard server.budget.takeTokenRequest(for: request.peerAddress) else {
            return OAuthError.tooMany(server.budget.tokenRetryAfter).response
        }
        let form = FormData(bytes: request.body)
        let result: Result<WebResponse, OAuthError>
        switch request.path {
        case IndieAuthServer.tokenPath: result = Result { () throws(OAuthError) in try token(form, request) }
        case IndieAuthServer.revocationPath: result = Result { () throws(OAuthError) in try revoke(form) }
        default: result = Result { () throws(OAuthError) in try introspect(form, request) }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): return error.response
        }
    }

    private func token(_ form: FormData, _ request: WebRequest) throws(OAuthError) -> WebResponse {
        // IndieAuth 2020's revocation at the token endpoint, which older
        // apps still send.
        if form["action"] == "revoke" { return try revoke(form) }
        let redeemed = try server.redeem(form, peerAddress: request.peerAddress, needsScope: true)
        return OAuthJSON.response(try server.token(for: redeemed))
    }

    /// RFC 7009: `token=…` revokes that bearer token; the answer is 200
    /// whether it named one or not (section 2.2), so it tells nothing.
    private func revoke(_ form: FormData) throws(OAuthError) -> WebResponse {
        guard !form.isRefused, let token = form["token"], !token.isEmpty else { throw .invalidRequest("token is missing.") }
        do {
            _ = try server.tokens.revoke(secret: token)
        } catch {
            throw .unavailable
        }
        return WebResponse(status: .ok, headers: OAuthJSON.headers)
    }

    /// RFC 7662. The caller must show a bearer token (`Authorization:
    /// Bearer …`, section 2.1 asks for some authorization): any valid
    /// token of the blog's. Only a token of the same user is described;
    /// any other answers `{"active": false}`, as an unknown one does, so
    /// one user's app learns nothing of another's tokens.
    private func introspect(_ form: FormData, _ request: WebRequest) throws(OAuthError) -> WebResponse {
        guard let caller = Self.bearer(request.headers[.authorization]) else { throw .invalidToken }
        guard !form.isRefused, let token = form["token"], !token.isEmpty else { throw .invalidRequest("token is missing.") }
        let asker: (user: UserRecord, token: AccessToken)?
        let found: (user: UserRecord, token: AccessToken)?
        do {
            asker = try server.tokens.verify(caller, kind: .bearer)
            found = asker == nil ? nil : try server.tokens.verify(token, kind: .bearer)
        } catch {
            throw .unavailable
        }
        guard let asker else { throw .invalidToken }
        guard let found, found.user.id == asker.user.id else { return OAuthJSON.response(["active": false]) }
        var answer: [String: Any] = [
            "active": true,
            "me": server.me(found.user.name),
            "scope": found.token.scopes,
            "token_type": "Bearer",
            "iat": Int(found.token.createdAt.timeIntervalSince1970),
        ]
        if let expiry = found.token.expiresAt { answer["exp"] = Int(expiry.timeIntervalSince1970) }
        if let clientID = IndieAuthServer.clientID(fromLabel: found.token.label) { answer["client_id"] = clientID }
        return OAuthJSON.response(answer)
    }

    /// The token of an `Authorization: Bearer …` header.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func methodNotAllowed(_ allow: String) -> WebResponse {
        var response = OAuthError(status: .methodNotAllowed, code: "invalid_request", description: "Use \(allow).").response
        response.headers[.allow] = allow
        return response
    }
}
