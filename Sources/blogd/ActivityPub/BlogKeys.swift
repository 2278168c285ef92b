import BlogModel
import BlogSignatures
import Foundation
import Synchronization

/// Each blog's RSA key pair, made on first need and kept in the database
/// (`storeActorKey` keeps the first stored, so two instances making one at
/// once end with the same). Parsed pairs are kept in memory: signing
/// parses no PEM. Making a key takes a good part of a second: callers are
/// application threads, the delivery thread or background tasks, never an
/// event loop.
final class BlogKeys: Sendable {
    private let storage: any BlogStorage
    private let pairs = Mutex<[Int64: ActorKeyPair]>([:])
    /// One key made at a time: a burst of first requests makes one, not many.
    private let making = Mutex<Void>(())

    init(storage: any BlogStorage) {
        self.storage = storage
    }

    /// The blog's key pair, made and stored when it has none.
    func pair(ofUserID userID: Int64) throws -> ActorKeyPair {
        if let kept = pairs.withLock({ $0[userID] }) { return kept }
        let pair = try making.withLock { _ in
            if let stored = try storage.actorKey(ofUserID: userID) {
                return try ActorKeyPair(privateKeyPEM: stored.privatePEM)
            }
            let made = try ActorKeyPair.generate()
            let kept = try storage.storeActorKey(userID: userID, publicPEM: made.publicKeyPEM,
                                                 privatePEM: made.privateKeyPEM, at: Date())
            return try ActorKeyPair(privateKeyPEM: kept.privatePEM)
        }
        pairs.withLock { $0[userID] = pair }
        return pair
    }

    /// The public key, PEM (SPKI), as the actor document gives it.
    func publicKeyPEM(ofUserID userID: Int64) throws -> String {
        try pair(ofUserID: userID).publicKeyPEM
    }

    /// The pair of the blog named `name`; nil when there is no such blog.
    func pair(ofBlog name: String) throws -> (userID: Int64, pair: ActorKeyPair)? {
        guard let user = try storage.user(named: name) else { return nil }
        return (user.id, try pair(ofUserID: user.id))
    }
}
