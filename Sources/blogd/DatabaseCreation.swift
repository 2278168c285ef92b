import Foundation

/// Whether `blogd serve` may make a SQLite database that is not there:
/// when told (`--init`), or on a first run, with no pages in the public
/// folder either. A database missing beside a folder of pages is a
/// mistyped path (or a lost file), and starting a new blog there would
/// rewrite the index over the old one.
enum DatabaseCreation {
    /// What `serve` does about `database`.
    enum Decision: Equatable {
        /// It is there (or it is PostgreSQL): open it.
        case open
        /// Make it: a first run, or `--init`.
        case create
    }

    /// Why the database is not made.
    struct Refusal: Error, CustomStringConvertible {
        let database: String
        let publicFolder: String
        var description: String {
            "no database at \(ConfigPaths.absolute(database)), but the public folder "
                + "\(ConfigPaths.absolute(publicFolder)) holds a blog's pages: check --db (BLOGD_DB, the config's db), "
                + "or give --init to start a new, empty database there"
        }
    }

    static func decide(database: String, publicFolder: String, initialize: Bool) throws(Refusal) -> Decision {
        if ConfigPaths.isDatabaseURL(database) || FileManager.default.fileExists(atPath: database) { return .open }
        if initialize || !holdsPages(publicFolder) { return .create }
        throw Refusal(database: database, publicFolder: publicFolder)
    }

    /// Whether `folder` holds a page blogd writes (`index.html`,
    /// `NAME.html`, a feed) at its top.
    static func holdsPages(_ folder: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.contains { !$0.hasPrefix(".") && ($0.hasSuffix(".html") || $0.hasSuffix(".atom")) }
    }
}
