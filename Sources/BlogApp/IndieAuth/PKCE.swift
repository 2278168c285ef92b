import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), S256 only: the app sends the
/// base64url SHA-256 of a secret verifier with the authorization request
/// and the verifier with the token request, so a code caught on its way
/// back is worth nothing alone. `plain` is refused (IndieAuth 2022
/// requires S256 support, and plain protects nothing a stolen code needs).
enum PKCE {
    static let method = "S256"

    /// A challenge as S256 makes it: 43 characters of base64url.
    static func isChallenge(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(isBase64url)
    }

    /// A verifier as RFC 7636 allows it: 43 to 128 characters of
    /// A-Z a-z 0-9 - . _ ~.
    static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy { isBase64url($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") }
    }

    /// The S256 challenge of `verifier`.
    static func challenge(of verifier: String) -> String {
        Data(SHA256.hash(data: Array(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `verifier` answers `challenge`, compared without stopping
    /// at the first difference.
    static func verifies(_ verifier: String, _ challenge: String) -> Bool {
        guard isVerifier(verifier) else { return false }
        let a = Array(Self.challenge(of: verifier).utf8), b = Array(challenge.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func isBase64url(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
