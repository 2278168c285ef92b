import HTTPTypes

/// The cookies a request carries, and the `Set-Cookie` lines of a
/// response.
///
///     let cookies = Cookies(request.headers)
///     let secret = cookies["blogd_session"]
///     headers.append(HTTPField(name: .setCookie,
///                              value: Cookies.set("blogd_session", secret, secure: true, maxAge: 86_400)))
public struct Cookies: Sendable {
    private var values: [String: String] = [:]

    public init(_ headers: HTTPFields) {
        for line in headers[values: .cookie] {
            for pair in line.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                // The first of a name wins, as browsers send the most
                // specific path first.
                if values[name] == nil { values[name] = String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
    }

    public subscript(name: String) -> String? { values[name] }

    /// A cookie for the whole site that scripts cannot read and other
    /// sites' forms do not send (`SameSite=Lax`); `Secure` over HTTPS.
    /// `maxAge` nil: until the browser closes; 0: deletes it.
    public static func set(_ name: String, _ value: String, secure: Bool, maxAge: Int?, sameSite: String = "Lax") -> String {
        var line = "\(name)=\(value); Path=/; HttpOnly; SameSite=\(sameSite)"
        if secure { line += "; Secure" }
        if let maxAge { line += "; Max-Age=\(maxAge)" }
        return line
    }
}
