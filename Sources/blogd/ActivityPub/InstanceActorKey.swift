import BlogModel
import BlogSignatures
import Synchronization

/// The site's own actor's RSA key pair (`InstanceActorDocument`, at
/// `BASE ap`), made on first need and kept in the database among the site
/// values (`storeInstanceKeyPEM` keeps the first stored, so instances
/// making one at once end with the same). Parsed once, then kept in
/// memory. Making it takes a good part of a second: callers are
/// application threads or the key fetcher's tasks, never an event loop.
final class InstanceActorKey: Sendable {
    private let storage: any BlogStorage
    private let kept = Mutex<ActorKeyPair?>(nil)
    /// One key made at a time: a burst of first requests makes one, not many.
    private let making = Mutex<Void>(())

    init(storage: any BlogStorage) {
        self.storage = storage
    }

    /// The pair, made and stored when the site has none.
    func pair() throws -> ActorKeyPair {
        if let pair = kept.withLock({ $0 }) { return pair }
        let pair = try making.withLock { _ in
            if let pair = kept.withLock({ $0 }) { return pair }
            if let stored = try storage.instanceKeyPEM() {
                return try ActorKeyPair(privateKeyPEM: stored)
            }
            let made = try ActorKeyPair.generate()
            return try ActorKeyPair(privateKeyPEM: try storage.storeInstanceKeyPEM(made.privateKeyPEM))
        }
        kept.withLock { $0 = pair }
        return pair
    }

    /// The public key, PEM (SPKI), as the instance actor gives it.
    func publicKeyPEM() throws -> String {
        try pair().publicKeyPEM
    }
}
