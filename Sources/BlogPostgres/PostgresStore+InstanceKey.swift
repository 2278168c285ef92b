import BlogModel
import PostgresNIO

/// The instance actor's key, in `site_values` (no table of its own),
/// shared by every instance.
extension PostgresStore {
    public func instanceKeyPEM() throws(StorageError) -> String? {
        let key = Self.instanceKeySiteValue
        return try rows("SELECT value FROM site_values WHERE key = \(key)") { row in
            try row.decode(String.self)
        }.first
    }

    public func storeInstanceKeyPEM(_ privatePEM: String) throws(StorageError) -> String {
        try siteValue(Self.instanceKeySiteValue, storingIfAbsent: privatePEM)
    }
}
