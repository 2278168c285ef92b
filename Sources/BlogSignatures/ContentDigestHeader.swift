import Crypto
import Foundation

/// The `Content-Digest` header of RFC 9530, as RFC 9421 signatures cover
/// it: `sha-256=:<base64>:` (or `sha-512`), a Structured Field dictionary.
public enum ContentDigestHeader {
    /// The header's value for `body`.
    public static func make(for body: some DataProtocol) -> String {
        "sha-256=:" + Data(SHA256.hash(data: body)).base64EncodedString() + ":"
    }

    /// Checks `value` against `body`: every `sha-256` and `sha-512` value
    /// must match, and one of them must be given (no weaker algorithm is
    /// worth trusting; others are ignored). Each hash is taken once,
    /// however many members name it.
    public static func check(_ value: String, body: some DataProtocol) throws(SignatureError) {
        let entries = try StructuredFields.dictionary(value)
        var found = false
        var sha256: Data?
        var sha512: Data?
        for entry in entries {
            let expected: Data
            switch entry.key {
            case "sha-256":
                expected = sha256 ?? Data(SHA256.hash(data: body))
                sha256 = expected
            case "sha-512":
                expected = sha512 ?? Data(SHA512.hash(data: body))
                sha512 = expected
            default: continue
            }
            guard case .item(let item) = entry.member, case .bytes(let given) = item.value,
                  given.count == expected.count else {
                throw .unsupportedDigest(String(value.prefix(200)))
            }
            guard Data(given) == expected else { throw .digestMismatch }
            found = true
        }
        guard found else { throw .unsupportedDigest(String(value.prefix(200))) }
    }
}
