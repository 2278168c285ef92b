/// The key pair of the site's own actor (the instance actor, an
/// `Application` at `BASE ap`), which signs the GETs the shared inbox
/// makes for its signers' keys: servers in "authorized fetch" mode answer
/// only signed GETs. Kept as its private key, PKCS#8 PEM (the public key
/// follows from it), among the site values: chosen once for the site.
public protocol InstanceKeyStorage: Sendable {
    /// The private key, PEM; nil until one is stored.
    func instanceKeyPEM() throws(StorageError) -> String?

    /// Keeps `privatePEM` unless a key is kept already, and returns the
    /// key kept: of two instances making one at once, both end with the
    /// first one stored.
    func storeInstanceKeyPEM(_ privatePEM: String) throws(StorageError) -> String
}

extension InstanceKeyStorage {
    /// The site value the key is kept under.
    public static var instanceKeySiteValue: String { "activitypub.instance_key" }
}
