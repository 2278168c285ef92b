import Foundation

/// Signs an outgoing request: the headers to add (`Date`, `Digest`,
/// `Signature`, as draft-cavage-12 has them) for `method` on `url` with
/// `body`, made with a blog's private key under `keyID`. `BlogSignatures`'
/// `HTTPSignatureSigner` is the server's; tests may give their own.
public protocol RequestSigner: Sendable {
    func signatureHeaders(method: String, url: String, body: [UInt8], keyID: String, privateKeyPEM: String,
                          date: Date) throws -> [(String, String)]
}
