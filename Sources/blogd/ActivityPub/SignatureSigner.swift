import BlogCore
import BlogSignatures
import Foundation

/// The delivery worker's `RequestSigner`: BlogSignatures' draft-cavage
/// signer, `rsa-sha256` over `(request-target) host date digest`.
///
/// The `Date` it stamps is always the wall clock's, whatever clock the
/// caller runs on: an inbox compares it with its own wall clock (5 minutes
/// either side), so a blogd under test on a manual clock would otherwise
/// have every delivery refused.
struct SignatureSigner: RequestSigner {
    func signatureHeaders(method: String, url: String, body: [UInt8], keyID: String, privateKeyPEM: String,
                          date: Date) throws -> [(String, String)] {
        let pair = try ParsedActorKeys.shared.pair(privateKeyPEM)
        return try Self.sign(method: method, url: url, body: body, keyID: keyID, pair: pair)
    }

    /// Signs with a pair at hand (the Accept, the signed GETs); `body` nil for a GET.
    static func sign(method: String, url: String, body: [UInt8]?, keyID: String,
                     pair: ActorKeyPair) throws -> [(String, String)] {
        try HTTPSignatureSigner.sign(method: method, url: url, body: body, keyID: keyID,
                                     privateKey: pair.privateKey, now: Date())
    }
}
