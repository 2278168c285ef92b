import BlogWeb
import HTTPTypes

extension WebResponse {
    /// An HTML page of the web client: never cached (it shows who is
    /// signed in), never framed, scripts only from this site.
    static func page(_ body: [UInt8], status: HTTPResponse.Status = .ok, extra: HTTPFields = [:]) -> WebResponse {
        var headers = securityHeaders
        headers.append(contentsOf: extra)
        return WebResponse(status: status, contentType: "text/html; charset=utf-8", body: body, headers: headers)
    }

    /// After a form: the browser GETs `location` (303, so a reload does
    /// not post again).
    static func redirect(_ location: String, extra: HTTPFields = [:]) -> WebResponse {
        var headers = securityHeaders
        headers[.location] = location
        headers.append(contentsOf: extra)
        return WebResponse(status: .seeOther, headers: headers)
    }

    static let securityHeaders: HTTPFields = [
        .cacheControl: "no-store",
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]
}
