import Crypto
import _CryptoExtras

/// An actor's RSA key pair: made once per blog, kept as PEM (SPKI public,
/// PKCS#8 private), the forms every fediverse server reads.
///
///     let pair = try ActorKeyPair.generate()      // RSA 2048: ~0.1-1 s
///     store(pair.publicKeyPEM, pair.privateKeyPEM)
///     let again = try ActorKeyPair(privateKeyPEM: stored)
public struct ActorKeyPair: Sendable {
    public let privateKey: _RSA.Signing.PrivateKey

    public init(privateKey: _RSA.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// A new 2048-bit pair. Slow (a prime search): make it once, off any
    /// request's hot path, and keep it.
    public static func generate() throws(SignatureError) -> ActorKeyPair {
        do {
            return ActorKeyPair(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch {
            throw .badKey("key generation failed: \(error)")
        }
    }

    /// A pair from its private key, PKCS#8 (`BEGIN PRIVATE KEY`) or
    /// PKCS#1 (`BEGIN RSA PRIVATE KEY`).
    public init(privateKeyPEM: String) throws(SignatureError) {
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .badKey("not a PEM RSA private key of 2048 bits or more")
        }
    }

    public var publicKey: _RSA.Signing.PublicKey { privateKey.publicKey }

    /// `-----BEGIN PUBLIC KEY-----` (SPKI): what an actor's `publicKeyPem` holds.
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// `-----BEGIN PRIVATE KEY-----` (PKCS#8).
    public var privateKeyPEM: String { privateKey.pkcs8PEMRepresentation }

    /// Reads a public key as an actor document gives it: SPKI
    /// (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`). Keys under
    /// 2048 bits are refused.
    public static func publicKey(pem: String) throws(SignatureError) -> _RSA.Signing.PublicKey {
        do {
            return try _RSA.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            throw .badKey("not a PEM RSA public key of 2048 bits or more")
        }
    }
}

/// An actor's RSA public key, named here so that callers need not import
/// swift-crypto's `_CryptoExtras` to hold one.
public typealias ActorPublicKey = _RSA.Signing.PublicKey
