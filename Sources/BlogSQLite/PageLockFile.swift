import BlogModel
import CLinux
import Foundation
import Synchronization
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
/// Each holder locks through its own open file description, so threads
/// of one process exclude each other as processes do; a process that
/// dies lets its locks go with it. Descriptions are kept for the next
/// lock rather than opened and closed each time (two system calls a page
/// write).
struct PageLockFile: Sendable {
    let path: String
    /// How long a lock is waited for at most.
    let deadline: Double
    private let idle = IdleDescriptors()

    init(path: String, deadline: Double) {
        self.path = path
        self.deadline = deadline
    }

    /// Closes the descriptions kept for later locks.
    func closeIdle() {
        idle.drain().forEach { close($0) }
    }

    enum LockError: Error {
        case cannotOpen(path: String, errno: Int32)
    }

    /// Runs `body` holding the lock of `userID`; waits for another holder
    /// at most `deadline` seconds (or the request's own deadline, if it
    /// ends first), then throws `.deadlineExceeded`.
    func withLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        var fd = idle.take() ?? -1
        if fd < 0 { fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw LockError.cannotOpen(path: path, errno: errno) }
        var locked = false
        defer {
            // Kept only once unlocked: the next holder must not inherit it.
            if !locked || clinux_ofd_lock(fd, userID, 0) == 0 { idle.give(fd) } else { close(fd) }
        }
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
        locked = true
        return try body()
    }
}

/// Open descriptions of the lock file, none holding a lock.
private final class IdleDescriptors: Sendable {
    /// Kept at most; more are closed (one per thread that waits at once).
    static let limit = 64
    private let descriptors = Mutex<[Int32]>([])

    func take() -> Int32? {
        descriptors.withLock { $0.popLast() }
    }

    func give(_ fd: Int32) {
        let kept = descriptors.withLock { list in
            guard list.count < Self.limit else { return false }
            list.append(fd)
            return true
        }
        if !kept { close(fd) }
    }

    func drain() -> [Int32] {
        descriptors.withLock { list in
            defer { list = [] }
            return list
        }
    }
}
