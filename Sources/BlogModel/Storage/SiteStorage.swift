/// The database itself: values chosen once for the site, a health
/// check, closing.
public protocol SiteStorage: Sendable {
    /// The site value stored under `key`; when there is none, `value` is
    /// stored first. The first value stored stays, whatever later callers
    /// pass (with several instances, whichever stored first): for what
    /// must not change once chosen, as the authority of the feeds' ids.
    func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String

    /// One cheap round trip to the database, for health checks.
    func ping() throws(StorageError)

    /// Closes the database; later calls fail.
    func close() throws(StorageError)
}
