import BlogWeb
import Foundation
import HTTPTypes

/// A refusal in Micropub's words: an OAuth 2.0 error code with a status,
/// sent as `{"error": ..., "error_description": ...}`.
struct MicropubError: Error, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var description: String

    static func invalidRequest(_ description: String) -> MicropubError {
        MicropubError(status: .badRequest, code: "invalid_request", description: description)
    }

    /// No token at all (803).
    static let unauthorized = MicropubError(status: .unauthorized, code: "unauthorized",
                                            description: "Send a token: Authorization: Bearer TOKEN.")
    /// A token that is unknown, revoked, expired or of a suspended user (804).
    static let forbidden = MicropubError(status: .forbidden, code: "forbidden", description: "The token is not valid.")

    static func insufficientScope(_ scope: String) -> MicropubError {
        MicropubError(status: .unauthorized, code: "insufficient_scope",
                      description: "The token does not allow \(scope).")
    }

    static let busy = MicropubError(status: .tooManyRequests, code: "too_many_requests",
                                    description: "Too much at once from your address: try again in a moment.")
    static let unavailable = MicropubError(status: .serviceUnavailable, code: "temporarily_unavailable",
                                           description: "The server could not do it now; nothing was changed.")

    var response: WebResponse {
        var headers: HTTPFields = [:]
        if status == .unauthorized {
            headers[.wwwAuthenticate] = code == "unauthorized" ? "Bearer" : "Bearer error=\"\(code)\""
        }
        return .json(["error": code, "error_description": description], status: status, extra: headers)
    }
}

extension WebResponse {
    /// A JSON body.
    static func json(_ object: Any, status: HTTPResponse.Status = .ok, extra: HTTPFields = [:]) -> WebResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        var headers: HTTPFields = [.cacheControl: "no-store", HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
        headers.append(contentsOf: extra)
        return WebResponse(status: status, contentType: "application/json", body: Array(body), headers: headers)
    }
}
