import BlogSignatures
import Foundation

/// Who signed an inbox request, once verified.
public struct VerifiedSigner: Sendable, Equatable {
    /// The key's owner: the inbox checks that the activity's `actor` is it.
    public var actorID: String
    public var keyID: String

    public init(actorID: String, keyID: String) {
        self.actorID = actorID
        self.keyID = keyID
    }
}

/// Why an inbox request's signature was refused.
public enum InboxVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request itself: no signature, a bad one, stale, a wrong digest.
    case signature(SignatureError)
    /// The signer's key could not be had: answer 401, or 503 for `busy`/`overBudget`.
    case key(KeyFetchError)

    public var description: String {
        switch self {
        case .signature(let error): error.description
        case .key(let error): error.description
        }
    }
}

/// The inbox's check of a POST, signed by draft-cavage-12 or RFC 9421
/// (`RequestSignature`): the signature parsed and checked (covered
/// headers, date, digest) before any key is fetched, so a request that
/// fails on its face costs no fetch; then the signer's key from the
/// `KeyFetcher`, and the RSA check. A key from the cache that fails is
/// fetched once more (the actor may have rotated its key) and tried again.
///
///     let inbox = InboxVerifier(keys: keys, now: { Date() })
///     let signer = try await inbox.verify(request, peerAddress: peer)
///     guard activity.actor == signer.actorID else { … 401 … }
public final class InboxVerifier: Sendable {
    public let keys: KeyFetcher
    public let verifier: HTTPSignatureVerifier
    private let now: @Sendable () -> Date

    public init(keys: KeyFetcher, verifier: HTTPSignatureVerifier = HTTPSignatureVerifier(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.keys = keys
        self.verifier = verifier
        self.now = now
    }

    public func verify(_ request: SignedRequest, peerAddress: String) async throws(InboxVerificationError) -> VerifiedSigner {
        let signature: RequestSignature
        do {
            signature = try RequestSignature.find(in: request.headers)
            try signature.check(request, window: verifier.window, now: now())
        } catch {
            throw .signature(error)
        }
        var (key, cached) = try await fetch(signature.keyID, peerAddress, refresh: false)
        do {
            try signature.verify(request, key: key.publicKey)
        } catch SignatureError.badSignature where cached {
            (key, cached) = try await fetch(signature.keyID, peerAddress, refresh: true)
            do {
                try signature.verify(request, key: key.publicKey)
            } catch {
                throw .signature(error)
            }
        } catch {
            throw .signature(error)
        }
        return VerifiedSigner(actorID: key.owner, keyID: key.keyID)
    }

    private func fetch(_ keyID: String, _ peerAddress: String, refresh: Bool) async throws(InboxVerificationError) -> (RemoteActorKey, Bool) {
        do {
            let (key, cached) = try await keys.key(for: keyID, from: peerAddress, refresh: refresh)
            return (key, cached)
        } catch {
            throw .key(error)
        }
    }
}
