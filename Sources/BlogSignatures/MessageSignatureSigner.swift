import Crypto
import Foundation
import _CryptoExtras

/// Signs a request the RFC 9421 way: `rsa-v1_5-sha256` (or
/// `rsa-pss-sha512`) over `@method`, `@target-uri` and, with a body,
/// `content-digest`, labelled `sig1`. blogd sends draft-cavage (what
/// Mastodon requires); this is for tests and tools.
///
///     let headers = try MessageSignatureSigner.sign(method: "POST", url: inbox, body: json,
///                                                   keyID: keyID, privateKey: pair.privateKey, now: Date())
///     // add `headers` (Host, Content-Digest, Signature-Input, Signature)
public enum MessageSignatureSigner {
    public static func sign(method: String, url: String, body: [UInt8]?, keyID: String,
                            privateKey: _RSA.Signing.PrivateKey, now: Date,
                            algorithm: String = "rsa-v1_5-sha256") throws(SignatureError) -> [(String, String)] {
        guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty,
              let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .malformed("\(url) is not an http(s) URL")
        }
        var hostHeader = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = parts.port, port != (scheme == "https" ? 443 : 80) { hostHeader += ":\(port)" }
        var headers: [(String, String)] = [("Host", hostHeader)]
        var components = ["@method", "@target-uri"]
        if let body {
            headers.append(("Content-Digest", ContentDigestHeader.make(for: body)))
            components.append("content-digest")
        }
        let items = components.map { StructuredFields.Item(value: .string($0), parameters: []) }
        let parameters: [StructuredFields.Parameter] = [
            .init(key: "created", value: .integer(Int(now.timeIntervalSince1970))),
            .init(key: "keyid", value: .string(keyID)),
            .init(key: "alg", value: .string(algorithm)),
        ]
        let input = StructuredFields.serialize(innerList: items, parameters: parameters)
        let request = SignedRequest(method: method, path: parts.percentEncodedPath, query: parts.percentEncodedQuery ?? "",
                                    headers: headers, body: body ?? [], scheme: scheme)
        let base = Array(try SignatureBase.make(components: components, parameters: input, request: request).utf8)
        let signature: _RSA.Signing.RSASignature
        do {
            switch algorithm {
            case "rsa-pss-sha512": signature = try privateKey.signature(for: SHA512.hash(data: base), padding: .PSS)
            case "rsa-v1_5-sha256": signature = try privateKey.signature(for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5)
            default: throw SignatureError.unsupportedAlgorithm(algorithm)
            }
        } catch let error as SignatureError {
            throw error
        } catch {
            throw .badKey("signing failed: \(error)")
        }
        headers.append(("Signature-Input", "sig1=" + input))
        headers.append(("Signature", "sig1=:" + Data(signature.rawRepresentation).base64EncodedString() + ":"))
        return headers
    }
}
