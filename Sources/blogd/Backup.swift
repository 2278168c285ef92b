import ArgumentParser
import BlogModel
import BlogPostgres
import BlogSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database, consistent at one moment, while the server runs.",
        discussion: """
            SQLite's online backup from one read transaction: the server keeps taking posts meanwhile, and FILE \
            holds every commit made before the copy began and none after. FILE is written beside its final name \
            and moved there once complete and on disk. To restore, stop the server, copy FILE over the database \
            (removing DB-wal and DB-shm if they are there) and start it: its start-up check rewrites the pages \
            that differ. For PostgreSQL use pg_dump.
            """)

    @Option(help: "JSON config file (default: config/blogd.json if present).")
    var config: String?
    @Option(help: "The SQLite database file to copy.")
    var db: String?
    @Flag(help: "Replace FILE if it exists.")
    var force = false
    @Argument(help: "The backup file to write.")
    var file: String

    func run() async throws {
        let database = try await configuredDatabase(config: config, db: db)
        do {
            try Self.backup(database, to: file, replace: force)
        } catch {
            throw fail(error.description)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("backed up \(database) to \(file) (\(size) bytes)")
    }

    /// Why a backup was not made.
    enum Failure: Error, CustomStringConvertible {
        case postgres
        case exists(String)
        case sameFile(String)
        case storage(StorageError)
        case file(FileInstall.Failure)

        var description: String {
            switch self {
            case .postgres: "the database is PostgreSQL: blogd backup copies SQLite files; use pg_dump (pg_dump --format=custom --file=blog.dump URL)"
            case .exists(let path): "\(path) exists; give --force to replace it"
            case .sameFile(let path): "\(path) is the database or one of its files; write the backup elsewhere"
            case .storage(let error): "\(error)"
            case .file(let error): error.description
            }
        }
    }

    static func backup(_ database: String, to target: String, replace: Bool) throws(Failure) {
        guard !PostgresLocation.isURL(database) else { throw .postgres }
        guard !isDatabaseFile(target, of: database) else { throw .sameFile(target) }
        // Said with the absolute path, as every command says it.
        guard FileManager.default.fileExists(atPath: database) else {
            throw .storage(.missing(path: ConfigPaths.absolute(database)))
        }
        // Checked before the copy, not only at the end: a refusal after
        // minutes of copying helps nobody.
        guard replace || !FileManager.default.fileExists(atPath: target) else { throw .exists(target) }
        let temporary = FileInstall.temporaryPath(for: target)
        FileInstall.discard(temporary)
        do {
            // Read-only: a backup never migrates or creates a database.
            let store = try SQLiteStore(path: database, create: false, readOnly: true)
            defer { try? store.close() }
            try store.backup(into: temporary)
        } catch {
            FileInstall.discard(temporary)
            throw .storage(error)
        }
        do {
            try FileInstall.install(temporary, as: target, replace: replace)
        } catch {
            FileInstall.discard(temporary)
            throw error.exists ? .exists(target) : .file(error)
        }
    }

    /// Whether `target` names the database or a file SQLite or blogd keeps
    /// beside it: writing there would destroy what is being copied.
    static func isDatabaseFile(_ target: String, of database: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let db = resolved(database)
        let companions = [db, db + "-wal", db + "-shm", db + "-journal", db + ".pagelock"]
        if companions.contains(resolved(target)) { return true }
        // The same file under another name (a hard link).
        var a = stat(), b = stat()
        guard stat(target, &a) == 0, stat(database, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
