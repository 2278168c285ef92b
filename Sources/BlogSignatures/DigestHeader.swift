import Crypto
import Foundation

/// The `Digest` header of RFC 3230 as ActivityPub servers send it:
/// `SHA-256=<base64 of the body's SHA-256>`.
public enum DigestHeader {
    /// The header's value for `body`.
    public static func make(for body: some DataProtocol) -> String {
        "SHA-256=" + Data(SHA256.hash(data: body)).base64EncodedString()
    }

    /// Checks `value` against `body`. Several comma-separated digests may
    /// be given: every SHA-256 one must match (the algorithm name in any
    /// case); without one, the header is refused, since no other
    /// algorithm is worth trusting.
    public static func check(_ value: String, body: some DataProtocol) throws(SignatureError) {
        let expected = Data(SHA256.hash(data: body))
        var found = false
        for part in value.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let equals = item.firstIndex(of: "=") else { continue }
            guard item[..<equals].lowercased() == "sha-256" else { continue }
            guard let given = Data(base64Encoded: String(item[item.index(after: equals)...])), given.count == 32 else {
                throw .unsupportedDigest(String(value.prefix(200)))
            }
            guard given == expected else { throw .digestMismatch }
            found = true
        }
        guard found else { throw .unsupportedDigest(String(value.prefix(200))) }
    }
}
