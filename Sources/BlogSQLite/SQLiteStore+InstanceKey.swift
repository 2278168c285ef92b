import BlogModel
import GRDB

/// The instance actor's key, in `site_values` (no table of its own).
extension SQLiteStore {
    public func instanceKeyPEM() throws(StorageError) -> String? {
        let key = Self.instanceKeySiteValue
        return try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM site_values WHERE key = ?", arguments: [key])
        }
    }

    public func storeInstanceKeyPEM(_ privatePEM: String) throws(StorageError) -> String {
        try siteValue(Self.instanceKeySiteValue, storingIfAbsent: privatePEM)
    }
}
