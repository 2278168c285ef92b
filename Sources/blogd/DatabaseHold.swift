import BlogPostgres
import BlogSQLite

/// Takes a SQLite database for `holder` (see `ServerLock`), or fails with
/// one line naming who has it. Nil for PostgreSQL: several servers share
/// it by design, and a rebuild there writes each page under the same
/// advisory lock the servers take.
func holdDatabase(_ settings: BlogConfig, as holder: ServerLock.Holder) throws -> ServerLock? {
    guard !PostgresLocation.isURL(settings.database) else { return nil }
    do {
        return try ServerLock.acquire(holder, database: settings.database)
    } catch {
        throw fail(error.description)
    }
}
