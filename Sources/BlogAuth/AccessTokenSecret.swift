import Crypto
import Foundation
import BlogModel

extension AccessTokens {
    /// A token's secret: how it is made, what a presented one must look
    /// like, and the hash the database keeps instead of it.
    enum Secret {
        /// What a bearer token's secret starts with, so that one pasted
        /// where it should not be (a log, a repository) can be recognised
        /// by scanners. Session secrets (cookies) go without it.
        static let bearerPrefix = "blogd_"

        /// Random bytes in a secret: 256 bits, past any guessing.
        static let randomBytes = 32

        /// The longest secret looked at, in bytes. One this server makes
        /// has 49 at most; anything much longer is refused unhashed.
        static let maximumLength = 200

        /// A new secret: 32 bytes from the system's generator (`getrandom`),
        /// base64url without padding (43 characters), prefixed for a
        /// bearer token.
        static func make(_ kind: AccessToken.Kind) -> String {
            var generator = SystemRandomNumberGenerator()
            var bytes: [UInt8] = []
            bytes.reserveCapacity(randomBytes)
            for _ in 0 ..< randomBytes / 8 {
                withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
            }
            return (kind == .bearer ? bearerPrefix : "") + base64url(bytes)
        }

        /// Whether `secret` could be one this server made: 1 to
        /// `maximumLength` bytes of base64url (A-Z a-z 0-9 - _, which
        /// covers the prefix). Reads at most `maximumLength + 1` bytes, so
        /// a megabyte costs what a short secret does. It compares the
        /// secret with no stored one, so its timing tells nothing.
        static func isWellFormed(_ secret: String) -> Bool {
            var count = 0
            for byte in secret.utf8 {
                count += 1
                guard count <= maximumLength, isBase64url(byte) else { return false }
            }
            return count > 0
        }

        /// The SHA-256 of `secret`'s UTF-8 in lower-case hex (64 digits):
        /// what the database keeps, and looks a presented secret up by.
        static func hash(_ secret: String) -> String {
            let digits = Array("0123456789abcdef".utf8)
            var text: [UInt8] = []
            text.reserveCapacity(64)
            for byte in SHA256.hash(data: Array(secret.utf8)) {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }

        /// RFC 4648 §5 (URL- and cookie-safe), without padding.
        static func base64url(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        private static func isBase64url(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"),
                 UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }
}
