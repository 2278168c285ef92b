import BlogWeb
import Foundation
import HTTPTypes

/// An OAuth 2.0 error answer (RFC 6749 section 5.2; RFC 7009, RFC 7662):
/// JSON `{"error": …, "error_description": …}`, never cached. Every
/// refusal of the token, revocation and introspection endpoints is one,
/// and none changes anything.
public struct OAuthError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    /// `invalid_request`, `invalid_grant`, `invalid_client`,
    /// `unsupported_grant_type`, `invalid_token`,
    /// `temporarily_unavailable`…
    public var code: String
    public var description: String
    /// Seconds before trying again (`Retry-After`), for a spent budget.
    public var retryAfter: Int?

    public init(status: HTTPResponse.Status = .badRequest, code: String, description: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.description = description
        self.retryAfter = retryAfter
    }

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_request", description: description)
    }

    /// The code is unknown, expired, used, or not for this client,
    /// redirect URI or verifier: one answer for all, so a guesser learns
    /// nothing of which.
    static func invalidGrant(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_grant", description: description)
    }

    static let unavailable = OAuthError(status: .serviceUnavailable, code: "temporarily_unavailable",
                                        description: "The database did not answer; try again in a moment.", retryAfter: 5)

    static func tooMany(_ retryAfter: Int) -> OAuthError {
        OAuthError(status: .tooManyRequests, code: "temporarily_unavailable",
                   description: "Too many requests from your address: wait a minute and try again.", retryAfter: retryAfter)
    }

    /// RFC 6750 section 3: a missing or bad bearer token on a call that
    /// needs one, with `WWW-Authenticate`.
    static let invalidToken = OAuthError(status: .unauthorized, code: "invalid_token",
                                         description: "This call needs a valid bearer token of the blog's user.")

    public var response: WebResponse {
        var headers = OAuthJSON.headers
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer error=\"\(code)\"" }
        return WebResponse(status: status, contentType: "application/json",
                           body: OAuthJSON.encode(["error": code, "error_description": description]), headers: headers)
    }
}

/// JSON answers of the IndieAuth endpoints.
enum OAuthJSON {
    /// RFC 6749 section 5.1: token answers are never cached.
    static let headers: HTTPFields = [.cacheControl: "no-store", HTTPField.Name("Pragma")!: "no-cache"]

    static func encode(_ object: [String: Any]) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data)
    }

    static func response(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> WebResponse {
        WebResponse(status: status, contentType: "application/json", body: encode(object), headers: headers)
    }
}
