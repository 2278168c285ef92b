import Crypto
import Foundation
import _CryptoExtras

/// Verifies an RFC 9421 signed request, in the same two steps as the
/// draft-cavage `HTTPSignatureVerifier`, so that the cheap checks come
/// before any key is fetched:
///
///     let signature = try MessageSignature.find(in: request.headers)
///     try verifier.check(request, signature, now: Date())   // coverage, created, digest
///     try verifier.verify(request, signature, key: key)      // RSA
///
/// What it takes: `rsa-v1_5-sha256` (also when `alg` is not given) or
/// `rsa-pss-sha512`; a signature covering `@method`, the target
/// (`@target-uri`, or `@authority` with `@path` or `@request-target`),
/// and `content-digest` when there is a body; a `created` within `window`
/// seconds of now either side (and `date`, if covered); `expires` not
/// passed; a `Content-Digest` that matches the body.
public struct MessageSignatureVerifier: Sendable {
    public static let algorithms: Set<String> = ["rsa-v1_5-sha256", "rsa-pss-sha512"]

    /// Seconds either side of now a signature's `created` may be.
    public var window: Double

    public init(window: Double = 300) {
        self.window = window
    }

    /// Everything that needs no key.
    public func check(_ request: SignedRequest, _ signature: MessageSignature, now: Date) throws(SignatureError) {
        if let algorithm = signature.algorithm, !Self.algorithms.contains(algorithm) {
            throw .unsupportedAlgorithm(algorithm)
        }
        let covered = Set(signature.components)
        guard covered.contains("@method") else { throw .headerNotSigned("@method") }
        let hasTarget = covered.contains("@target-uri")
            || covered.contains("@authority") && (covered.contains("@path") || covered.contains("@request-target"))
        guard hasTarget else { throw .headerNotSigned("@target-uri") }
        let hasBody = !request.body.isEmpty
        if hasBody, !covered.contains("content-digest") { throw .headerNotSigned("content-digest") }

        guard let created = signature.created else { throw .missingParameter("created") }
        let seconds = now.timeIntervalSince1970
        guard Double(created) <= seconds + window, Double(created) >= seconds - window else { throw .dateOutOfWindow }
        if let expires = signature.expires, Double(expires) < seconds { throw .expired }
        if covered.contains("date") {
            guard let text = request.header("date") else { throw .missingHeader("date") }
            guard let date = HTTPDate.parse(text) else { throw .badDate(String(text.prefix(100))) }
            guard abs(date.timeIntervalSince(now)) <= window else { throw .dateOutOfWindow }
        }

        if let digest = request.header("content-digest") {
            try ContentDigestHeader.check(digest, body: request.body)
        } else if hasBody {
            throw .missingHeader("content-digest")
        }
        _ = try SignatureBase.make(components: signature.components, parameters: signature.parameters, request: request)
    }

    /// The RSA check: `signature` is valid for the request's signature base under `key`.
    public func verify(_ request: SignedRequest, _ signature: MessageSignature,
                       key: _RSA.Signing.PublicKey) throws(SignatureError) {
        let base = Array(try SignatureBase.make(components: signature.components, parameters: signature.parameters,
                                                request: request).utf8)
        let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature.signature)
        let valid: Bool
        switch signature.algorithm {
        case "rsa-pss-sha512":
            valid = key.isValidSignature(rsa, for: SHA512.hash(data: base), padding: .PSS)
        default:
            valid = key.isValidSignature(rsa, for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5)
        }
        guard valid else { throw .badSignature }
    }

    /// Both steps, for a caller that has the key already.
    public func verify(_ request: SignedRequest, key: _RSA.Signing.PublicKey,
                       now: Date) throws(SignatureError) -> MessageSignature {
        let signature = try MessageSignature.find(in: request.headers)
        try check(request, signature, now: now)
        try verify(request, signature, key: key)
        return signature
    }
}
