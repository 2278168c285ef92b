import BlogModel
import BlogPostgres
import BlogSQLite
import Foundation
import Logging

/// The database the `db` setting names: a `postgres://` (or
/// `postgresql://`) URL, or else the path of a SQLite file.
enum Database {
    /// Opens it for the server or `rebuild` (migrating it), or read-only
    /// for listings (SQLite: read-only; PostgreSQL: no migration). A SQLite
    /// file that is not there is made only with `create` (`blogd serve`,
    /// see `DatabaseCreation`): everyone else fails with its absolute path,
    /// so that a mistyped `--db` never starts a new, empty blog.
    static func open(_ db: String, layout: PageLayout, readOnly: Bool = false, create: Bool = false,
                     deadline: Double = 3, logger: Logger) throws -> any BlogStorage {
        if PostgresLocation.isURL(db) {
            return try PostgresStore(location: PostgresLocation(url: db), migrate: !readOnly,
                                     options: PostgresStore.Options(deadline: deadline), logger: logger)
        }
        guard create || FileManager.default.fileExists(atPath: db) else { throw Missing(path: db) }
        return readOnly ? try SQLiteStore(path: db, create: false, readOnly: true, deadline: deadline)
            : try SQLiteStore(path: db, create: create, layout: layout, deadline: deadline)
    }

    /// A SQLite database that is not there.
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "no database at \(ConfigPaths.absolute(path)) (check --db, BLOGD_DB or the config's db; "
                + "`blogd serve --init` makes a new one)"
        }
    }

    /// `db` for logs and messages: a URL's password is never shown.
    static func shown(_ db: String) -> String {
        guard PostgresLocation.isURL(db) else { return db }
        // An unparsable URL may still hold a password: show only its scheme.
        guard let location = try? PostgresLocation(url: db, environment: [:]) else { return "postgres://(invalid URL)" }
        return location.description
    }
}
