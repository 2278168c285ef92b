import Crypto
import Foundation

/// Tokens that prove a form was made by blogd for this browser.
///
/// A signed-in form carries a token derived from the session's secret
/// (which the browser keeps in an HttpOnly cookie no page can read), so
/// another site can neither read it nor make it. The login and register
/// forms, before any session, use a double-submit cookie: a random value
/// in a `SameSite=Strict` cookie that the form must repeat.
enum CSRF {
    /// The form token of a session.
    static func token(forSession secret: String) -> String {
        let digest = SHA256.hash(data: Data(("blogd-csrf\u{0}" + secret).utf8))
        return digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `presented` is the token of the session `secret`, compared
    /// in constant time.
    static func check(_ presented: String?, session secret: String) -> Bool {
        guard let presented else { return false }
        return same(presented, token(forSession: secret))
    }

    /// A random token for a form shown before any session.
    static func fresh() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Equal strings, without stopping at the first difference.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
