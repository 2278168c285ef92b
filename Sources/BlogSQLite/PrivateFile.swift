import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A database file readable by its owner only. It holds scrypt and token
/// hashes; made by SQLite, it would get 0644 under the usual umask. SQLite
/// gives its `-wal` and `-shm` the mode of the database file, so they
/// follow.
enum PrivateFile {
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot make \(path): \(reason)" }
    }

    /// Makes an empty file at `path` (an empty file is an empty SQLite
    /// database) with mode 0600, whatever the umask; nothing if it exists.
    static func make(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
        // The mode of open(2) is masked by the umask; 0600 masked is at
        // most 0600, and fchmod makes it exactly that.
        fchmod(fd, 0o600)
        close(fd)
    }
}
