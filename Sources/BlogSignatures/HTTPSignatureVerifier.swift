import Crypto
import Foundation
import _CryptoExtras

/// Verifies a draft-cavage-12 signed request, in two steps so that the
/// cheap checks come before any key is fetched:
///
///     let signature = try SignatureHeader.find(in: request.headers)
///     try verifier.check(request, signature, now: Date())   // coverage, date, digest
///     let key = … fetch signature.keyID …
///     try verifier.verify(request, signature, key: key)      // RSA
///
/// What it takes: `rsa-sha256`, or `hs2019` (or no algorithm) with an RSA
/// key, both as RSA PKCS#1 v1.5 over SHA-256; a signature covering
/// `(request-target)`, `host`, `date` (or `(created)`), and `digest` when
/// there is a body; a `Digest` that matches the body; a date within
/// `window` seconds of now either side; `(expires)` not passed.
public struct HTTPSignatureVerifier: Sendable {
    /// Seconds either side of now a request's date may be.
    public var window: Double

    public init(window: Double = 300) {
        self.window = window
    }

    /// Everything that needs no key: the algorithm, the headers covered,
    /// the date, the digest, and that the signing string can be built.
    public func check(_ request: SignedRequest, _ signature: SignatureHeader, now: Date) throws(SignatureError) {
        if let algorithm = signature.algorithm, algorithm != "rsa-sha256", algorithm != "hs2019" {
            throw .unsupportedAlgorithm(algorithm)
        }
        let covered = Set(signature.headers)
        for name in ["(request-target)", "host"] where !covered.contains(name) {
            throw .headerNotSigned(name)
        }
        // Mastodon takes `(created)` in place of `date`; so do we.
        guard covered.contains("date") || covered.contains("(created)") else { throw .headerNotSigned("date") }
        let hasBody = !request.body.isEmpty
        if hasBody, !covered.contains("digest") { throw .headerNotSigned("digest") }

        if covered.contains("date") {
            guard let text = request.header("date") else { throw .missingHeader("date") }
            guard let date = HTTPDate.parse(text) else { throw .badDate(String(text.prefix(100))) }
            guard abs(date.timeIntervalSince(now)) <= window else { throw .dateOutOfWindow }
        }
        if covered.contains("(created)") {
            guard let created = signature.created else { throw .missingParameter("created") }
            // A signature made in the future is refused past the window, as a date is.
            guard Double(created) <= now.timeIntervalSince1970 + window,
                  Double(created) >= now.timeIntervalSince1970 - window else { throw .dateOutOfWindow }
        }
        if let expires = signature.expires, Double(expires) < now.timeIntervalSince1970 { throw .expired }

        if let digest = request.header("digest") {
            try DigestHeader.check(digest, body: request.body)
        } else if hasBody {
            throw .missingHeader("digest")
        }
        _ = try SigningString.make(headers: signature.headers, request: request,
                                   created: signature.created, expires: signature.expires)
    }

    /// The RSA check: `signature` is valid for the request's signing string under `key`.
    public func verify(_ request: SignedRequest, _ signature: SignatureHeader,
                       key: _RSA.Signing.PublicKey) throws(SignatureError) {
        let text = try SigningString.make(headers: signature.headers, request: request,
                                          created: signature.created, expires: signature.expires)
        let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature.signature)
        guard key.isValidSignature(rsa, for: Array(text.utf8), padding: .insecurePKCS1v1_5) else {
            throw .badSignature
        }
    }

    /// Both steps, for a caller that has the key already.
    public func verify(_ request: SignedRequest, key: _RSA.Signing.PublicKey, now: Date) throws(SignatureError) -> SignatureHeader {
        let signature = try SignatureHeader.find(in: request.headers)
        try check(request, signature, now: now)
        try verify(request, signature, key: key)
        return signature
    }
}
