import Foundation
import _CryptoExtras

/// A request's signature in either form the inbox takes: RFC 9421 when
/// the request has a `Signature-Input` header, else draft-cavage-12
/// (`Signature`, or `Authorization: Signature …`). One key id either
/// way, fetched and kept alike.
///
///     let signature = try RequestSignature.find(in: request.headers)
///     try signature.check(request, window: 300, now: Date())
///     let key = … fetch signature.keyID …
///     try signature.verify(request, key: key)
public enum RequestSignature: Sendable, Equatable {
    case cavage(SignatureHeader)
    case message(MessageSignature)

    public static func find(in headers: [(String, String)]) throws(SignatureError) -> RequestSignature {
        if MessageSignature.isPresent(in: headers) { return .message(try MessageSignature.find(in: headers)) }
        return .cavage(try SignatureHeader.find(in: headers))
    }

    public var keyID: String {
        switch self {
        case .cavage(let header): header.keyID
        case .message(let signature): signature.keyID
        }
    }

    /// Everything that needs no key (`HTTPSignatureVerifier.check`, `MessageSignatureVerifier.check`).
    public func check(_ request: SignedRequest, window: Double, now: Date) throws(SignatureError) {
        switch self {
        case .cavage(let header): try HTTPSignatureVerifier(window: window).check(request, header, now: now)
        case .message(let signature): try MessageSignatureVerifier(window: window).check(request, signature, now: now)
        }
    }

    /// The RSA check.
    public func verify(_ request: SignedRequest, key: _RSA.Signing.PublicKey) throws(SignatureError) {
        switch self {
        case .cavage(let header): try HTTPSignatureVerifier().verify(request, header, key: key)
        case .message(let signature): try MessageSignatureVerifier().verify(request, signature, key: key)
        }
    }
}
