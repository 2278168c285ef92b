import Crypto
import Foundation
import _CryptoExtras

/// Signs an outgoing request the way Mastodon requires: draft-cavage-12,
/// `rsa-sha256` (RSA PKCS#1 v1.5 over SHA-256), covering
/// `(request-target) host date digest` with a body and
/// `(request-target) host date` without.
///
///     let headers = try HTTPSignatureSigner.sign(method: "POST", url: inbox, body: json,
///                                                keyID: "https://blog.example/ap/alice#main-key",
///                                                privateKey: pair.privateKey, now: Date())
///     // add `headers` (Host, Date, Digest, Signature) to the request
public enum HTTPSignatureSigner {
    /// The headers to add to the request: `Host`, `Date` (IMF-fixdate),
    /// `Digest` when `body` is given (even empty, for a POST), `Signature`.
    public static func sign(method: String, url: String, body: [UInt8]?, keyID: String,
                            privateKey: _RSA.Signing.PrivateKey, now: Date) throws(SignatureError) -> [(String, String)] {
        guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty,
              let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .malformed("\(url) is not an http(s) URL")
        }
        // Host as the HTTP client will send it: the port only when not the scheme's own.
        var hostHeader = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = parts.port, port != (scheme == "https" ? 443 : 80) { hostHeader += ":\(port)" }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        var headers: [(String, String)] = [("Host", hostHeader), ("Date", HTTPDate.format(now))]
        var covered = ["(request-target)", "host", "date"]
        if let body {
            headers.append(("Digest", DigestHeader.make(for: body)))
            covered.append("digest")
        }
        let request = SignedRequest(method: method, path: path, query: parts.percentEncodedQuery ?? "",
                                    headers: headers, body: body ?? [])
        let text = try SigningString.make(headers: covered, request: request)
        let signature: _RSA.Signing.RSASignature
        do {
            signature = try privateKey.signature(for: Array(text.utf8), padding: .insecurePKCS1v1_5)
        } catch {
            throw .badKey("signing failed: \(error)")
        }
        let header = SignatureHeader(keyID: keyID, algorithm: "rsa-sha256", headers: covered,
                                     signature: Array(signature.rawRepresentation))
        headers.append(("Signature", header.value))
        return headers
    }
}
