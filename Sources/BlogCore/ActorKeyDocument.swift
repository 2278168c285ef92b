import BlogSignatures
import Foundation

/// Reads the key a `keyId` names out of the document fetched for it:
/// an actor (`publicKey: {id, owner, publicKeyPem}`, or a list of such),
/// or a key document of its own (`{id, owner, publicKeyPem}`) that points
/// to its owner.
enum ActorKeyDocument {
    static func key(in body: [UInt8], keyID: String) throws(KeyFetchError) -> RemoteActorKey {
        guard let document = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .noKey("the document is not a JSON object")
        }
        let candidates: [[String: Any]]
        var isKeyDocument = false
        if let one = document["publicKey"] as? [String: Any] {
            candidates = [one]
        } else if let list = document["publicKey"] as? [Any] {
            candidates = list.compactMap { $0 as? [String: Any] }
        } else if document["publicKeyPem"] != nil {
            candidates = [document]
            isKeyDocument = true
        } else {
            throw .noKey("the document has no publicKey")
        }
        guard let found = candidates.first(where: { $0["id"] as? String == keyID }) else {
            throw .noKey("the document has no key with the id \(keyID.prefix(200))")
        }
        guard let pem = found["publicKeyPem"] as? String else { throw .noKey("the key has no publicKeyPem") }
        // An actor's key belongs to the actor; a key document names its owner.
        let actorID = isKeyDocument ? nil : document["id"] as? String
        guard let owner = (found["owner"] as? String) ?? (found["controller"] as? String) ?? actorID else {
            throw .badOwner("the key names no owner")
        }
        if let actorID, owner != actorID {
            throw .badOwner("the key's owner \(owner.prefix(200)) is not the actor \(actorID.prefix(200))")
        }
        // A host speaks only for its own actors: a document on evil.example
        // naming an owner on m.example proves nothing about that owner.
        guard let ownerOrigin = origin(owner), ownerOrigin == origin(keyID) else {
            throw .badOwner("the owner \(owner.prefix(200)) is not on the key's host")
        }
        do {
            return RemoteActorKey(keyID: keyID, owner: owner, publicKey: try ActorKeyPair.publicKey(pem: pem))
        } catch {
            throw .badKey(error.description)
        }
    }

    /// `scheme://host:port` of an http(s) URL, lowercased; nil otherwise.
    static func origin(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = parts.host?.lowercased(), !host.isEmpty else { return nil }
        return "\(scheme)://\(host):\(parts.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// The URL to fetch for `keyID`: the key id without its `#fragment`.
    static func documentURL(_ keyID: String) throws(KeyFetchError) -> (url: String, host: String) {
        guard keyID.utf8.count <= 2048, origin(keyID) != nil,
              let url = keyID.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init),
              let host = URLComponents(string: url)?.host?.lowercased() else {
            throw .badKeyID(keyID)
        }
        return (url, host)
    }
}
