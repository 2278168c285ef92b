import BlogSignatures
import Foundation
import _CryptoExtras

/// Checks the HTTP signatures of the POSTs a farm receives, with
/// BlogSignatures' verifier and the senders' public keys (a blog's actor
/// key, as its actor document gives it), by key id: every `every`-th
/// POST, so that a benchmark can check a sample without spending its CPU
/// on all of them.
public struct FarmSignatureCheck: Sendable {
    /// The public keys by key id (`BASE/ap/NAME#main-key`).
    public let keys: [String: _RSA.Signing.PublicKey]
    public let every: Int
    /// The clock a signature's `Date` is checked against.
    let now: @Sendable () -> Date
    let verifier = HTTPSignatureVerifier()

    /// - Parameters:
    ///   - keys: PEM (SPKI) public keys by key id.
    ///   - now: the clock of the `Date` window (a test that signs at a
    ///     time of its own checks at that time: on a starved machine its
    ///     POSTs may go minutes after they were signed).
    public init(keys: [String: String], every: Int = 1, now: @escaping @Sendable () -> Date = Date.init) throws {
        var parsed: [String: _RSA.Signing.PublicKey] = [:]
        for (id, pem) in keys { parsed[id] = try _RSA.Signing.PublicKey(pemRepresentation: pem) }
        self.keys = parsed
        self.every = max(1, every)
        self.now = now
    }

    /// Nil when the request is signed by one of the keys, under its key
    /// id; else why not.
    func problem(with request: FarmRequest) -> String? {
        let parts = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let signed = SignedRequest(method: request.method, path: String(parts[0]),
                                   query: parts.count > 1 ? String(parts[1]) : "",
                                   headers: request.headers, body: request.body)
        do {
            let signature = try SignatureHeader.find(in: signed.headers)
            guard let key = keys[signature.keyID] else { return "signed by an unknown key \(signature.keyID)" }
            try verifier.check(signed, signature, now: now())
            try verifier.verify(signed, signature, key: key)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
