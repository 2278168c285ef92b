import BlogCore
import BlogPostgres
import BlogSQLite
import Foundation
import Logging

/// The database the `db` setting names: a `postgres://` (or
/// `postgresql://`) URL, or else the path of a SQLite file.
enum Database {
    /// Opens it for the server or `rebuild` (creating and migrating it),
    /// or read-only for listings (SQLite: read-only; PostgreSQL: no
    /// migration).
    static func open(_ db: String, layout: PageLayout, readOnly: Bool = false, deadline: Double = 3,
                     logger: Logger) throws -> any BlogStorage {
        if PostgresLocation.isURL(db) {
            return try PostgresStore(location: PostgresLocation(url: db), migrate: !readOnly,
                                     options: PostgresStore.Options(deadline: deadline), logger: logger)
        }
        return readOnly ? try BlogStore(path: db, create: false, readOnly: true, deadline: deadline)
            : try BlogStore(path: db, layout: layout, deadline: deadline)
    }

    /// `db` for logs and messages: a URL's password is never shown.
    static func shown(_ db: String) -> String {
        guard PostgresLocation.isURL(db) else { return db }
        // An unparsable URL may still hold a password: show only its scheme.
        guard let location = try? PostgresLocation(url: db, environment: [:]) else { return "postgres://(invalid URL)" }
        return location.description
    }
}
