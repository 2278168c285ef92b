import BlogWeb
import Foundation
import HTTPTypes

/// A refusal in Micropub's words: an OAuth 2.0 error code with a status,
/// sent as `{"error": ..., "error_description": ...}`.
struct MicropubError: Error, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var description: String
    /// The scope the request needed, named in an `insufficient_scope`.
    var scope: String? = nil

    static func invalidRequest(_ description: String) -> MicropubError {
        MicropubError(status: .badRequest, code: "invalid_request", description: description)
    }

    /// No token at all (803).
    static let unauthorized = MicropubError(status: .unauthorized, code: "unauthorized",
                                            description: "Send a token: Authorization: Bearer TOKEN.")
    /// An `Authorization` of another scheme (`Basic ...`): no bearer
    /// token, so the client is told how to send one.
    static let notBearer = MicropubError(status: .unauthorized, code: "unauthorized",
                                         description: "Authorization must be a Bearer token: Authorization: Bearer TOKEN.")
    /// A token that is unknown, revoked, expired or of a suspended user (804).
    static let forbidden = MicropubError(status: .forbidden, code: "forbidden", description: "The token is not valid.")
    /// A post of another user (section 3.8: the user may not do this).
    static let notYours = MicropubError(status: .forbidden, code: "forbidden", description: "That post is another user's.")

    /// Section 3.8 gives `insufficient_scope` HTTP 401, with the scope
    /// needed named in `scope`.
    static func insufficientScope(_ scope: String) -> MicropubError {
        MicropubError(status: .unauthorized, code: "insufficient_scope",
                      description: "The token does not allow \(scope).", scope: scope)
    }

    static let busy = MicropubError(status: .tooManyRequests, code: "too_many_requests",
                                    description: "Too much at once from your address: try again in a moment.")
    static let unavailable = MicropubError(status: .serviceUnavailable, code: "temporarily_unavailable",
                                           description: "The server could not do it now; nothing was changed.")

    var response: WebResponse {
        var headers: HTTPFields = [:]
        if status == .unauthorized {
            headers[.wwwAuthenticate] = switch (code, scope) {
            case ("unauthorized", _): "Bearer"
            case (_, let scope?): "Bearer error=\"\(code)\", scope=\"\(scope)\""
            default: "Bearer error=\"\(code)\""
            }
        }
        var object = ["error": code, "error_description": description]
        if let scope { object["scope"] = scope }
        return .json(object, status: status, extra: headers)
    }
}

extension MicropubError {
    /// A refusal the web server gave before Micropub saw the request.
    init(_ refusal: WebRefusal) {
        let code = switch refusal {
        case .tooLarge: "invalid_request"
        case .tooManyBodies, .busy, .stopping: "temporarily_unavailable"
        }
        self.init(status: refusal.status, code: code, description: refusal.text)
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
