import BlogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// Copies the database, as it stood at one commit, into a new SQLite
    /// file at `path` (`blogd backup`).
    ///
    /// SQLite's online backup, run inside one read transaction of the pool:
    /// in WAL mode a reader blocks no writer, so the server keeps taking
    /// posts while the copy is made, and the copy holds exactly the commits
    /// made before the transaction began. The copy is made a single file
    /// (rollback journal; the first server to open it puts it back in WAL
    /// mode), checked with `quick_check`, and on disk (`synchronous` FULL)
    /// when this returns. Fails if `path` exists.
    public func backup(into path: String) throws(StorageError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "the backup file exists")
        }
        try gate.pass { () throws(StorageError) in
            do {
                // It holds the password and token hashes, as the database does.
                try PrivateFile.make(path)
                let copy = try DatabaseQueue(path: path)
                defer { try? copy.close() }
                try pool.backup(to: copy)
                try copy.writeWithoutTransaction { db in
                    // The copied header says WAL, as the source does; a
                    // file without its -wal beside it is the safer backup.
                    try db.execute(sql: "PRAGMA journal_mode = DELETE")
                    let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    guard check == ["ok"] else {
                        throw StorageError.failed("the copy failed its check: \(check.prefix(3).joined(separator: "; "))")
                    }
                }
                try copy.close()
            } catch {
                throw Self.storageError(error)
            }
        }
    }
}
