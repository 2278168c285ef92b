import BlogSignatures
import Synchronization

/// Blogs' private keys parsed once: the delivery worker hands the signer
/// each delivery's key as PEM, and parsing an RSA key (BoringSSL checks
/// the key as it parses) cost as much as the signature itself, so a
/// fan-out to 10,000 inboxes spent half its signing CPU parsing the same
/// PEM again (docs/activitypub-fanout.md). Kept by PEM text, so a new
/// key is simply another entry; a few blogs' worth, never evicted below
/// `limit` (cleared past it: a site with more blogs than that just
/// parses again).
final class ParsedActorKeys: Sendable {
    static let shared = ParsedActorKeys()

    private let pairs = Mutex<[String: ActorKeyPair]>([:])
    let limit: Int

    init(limit: Int = 256) { self.limit = limit }

    /// The pair of `privateKeyPEM`, parsed at its first use.
    func pair(_ privateKeyPEM: String) throws(SignatureError) -> ActorKeyPair {
        if let kept = pairs.withLock({ $0[privateKeyPEM] }) { return kept }
        let parsed = try ActorKeyPair(privateKeyPEM: privateKeyPEM)
        pairs.withLock { pairs in
            if pairs.count >= limit { pairs.removeAll() }
            pairs[privateKeyPEM] = parsed
        }
        return parsed
    }
}
