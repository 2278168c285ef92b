import BlogCore
import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The page locks of one SQLite database, across processes: a byte per
/// user id in a file beside the database (`blog.sqlite.pagelock`), locked
/// with an open file description lock. The server and an admin command
/// (`blogd delete-post`, run while the server runs) so never write the
/// pages of one user at once, and the last page written is rendered from
/// the last state committed.
///
/// Each lock opens the file anew, so threads of one process exclude each
/// other as processes do; a process that dies lets its locks go with it.
struct PageLockFile: Sendable {
    let path: String
    /// How long a lock is waited for at most.
    let deadline: Double

    enum LockError: Error {
        case cannotOpen(path: String, errno: Int32)
    }

    /// Runs `body` holding the lock of `userID`; waits for another holder
    /// at most `deadline` seconds (or the request's own deadline, if it
    /// ends first), then throws `.deadlineExceeded`.
    func withLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LockError.cannotOpen(path: path, errno: errno) }
        defer { close(fd) }
        let limit = RequestDeadline.seconds(upTo: deadline)
        let start = ContinuousClock.now
        var pause = 0.0005
        // A byte past the end of a file can be locked; the file stays empty.
        while clinux_ofd_lock(fd, userID, 1) != 0 {
            guard errno == EAGAIN || errno == EACCES || errno == EINTR else {
                throw LockError.cannotOpen(path: path, errno: errno)
            }
            // Holders keep a lock for one page write: a short poll finds it free.
            let waited = ContinuousClock.now - start
            guard waited < .milliseconds(Int64(limit * 1000)) else { throw StorageError.deadlineExceeded(seconds: limit) }
            usleep(UInt32(pause * 1_000_000))
            pause = min(pause * 2, 0.02)
        }
        // Closing the file lets the lock go.
        return try body()
    }
}
