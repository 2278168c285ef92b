/// Why a signed request, or a piece of one, was refused: each case names
/// what failed, so the inbox can log it and a test can expect it.
public enum SignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither `Signature` nor `Authorization: Signature …` was sent.
    case noSignature
    /// The signature header is longer than `SignatureHeader.maxLength` bytes.
    case headerTooLong(Int)
    /// It lists more headers than `SignatureHeader.maxHeaders`.
    case tooManyHeaders(Int)
    /// It does not parse: the reason says where.
    case malformed(String)
    /// A parameter the draft requires (`keyId`, `signature`) is missing.
    case missingParameter(String)
    /// An algorithm other than `rsa-sha256` and `hs2019`.
    case unsupportedAlgorithm(String)
    /// A header the signature lists, or one the verifier requires, is not in the request.
    case missingHeader(String)
    /// The signature does not cover a header the verifier requires.
    case headerNotSigned(String)
    /// The `Date` header is not an IMF-fixdate.
    case badDate(String)
    /// `Date` (or `(created)`) is further from now than the window allows.
    case dateOutOfWindow
    /// `(expires)` has passed.
    case expired
    /// The `Digest` header has no `SHA-256=` value (or none that decodes).
    case unsupportedDigest(String)
    /// The body's SHA-256 is not the one the `Digest` header names.
    case digestMismatch
    /// The key is not a PEM RSA key of at least 2048 bits.
    case badKey(String)
    /// The signature is not valid for the signing string under the key.
    case badSignature

    public var description: String {
        switch self {
        case .noSignature: "the request carries no Signature header"
        case .headerTooLong(let count): "the signature header is \(count) bytes, over \(SignatureHeader.maxLength)"
        case .tooManyHeaders(let count): "the signature lists \(count) headers, over \(SignatureHeader.maxHeaders)"
        case .malformed(let reason): "the signature header is malformed: \(reason)"
        case .missingParameter(let name): "the signature header has no \(name)"
        case .unsupportedAlgorithm(let name): "the signature algorithm \(name) is not supported"
        case .missingHeader(let name): "the request has no \(name) header"
        case .headerNotSigned(let name): "the signature does not cover \(name)"
        case .badDate(let text): "the Date header \"\(text)\" is not an HTTP date"
        case .dateOutOfWindow: "the request's date is too far from now"
        case .expired: "the signature has expired"
        case .unsupportedDigest(let text): "the Digest header \"\(text)\" has no SHA-256 value"
        case .digestMismatch: "the body does not match its Digest"
        case .badKey(let reason): "the key is unusable: \(reason)"
        case .badSignature: "the signature does not verify"
        }
    }
}
