import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The mark of a process that has a SQLite database to itself for a while:
/// `blogd serve` for as long as it serves, `blogd rebuild` for as long as
/// it rebuilds. The two must not overlap: a server's start-up check
/// removes the temporary files a rebuild is about to rename, and an
/// operator who runs a rebuild beside a server means to stop it first.
///
/// Two bytes of the page-lock file beside the database (`DB.pagelock`),
/// locked with open file description locks, as the page locks are. Page
/// locks use the byte at the user's id; ids are SQLite rowids, given one
/// above the largest so far, so these two bytes, the last a lock can
/// name, would be reached only after some 9.2 × 10¹⁸ users:
///
/// - `servingByte` (`Int64.max - 1`): held by a server and by a rebuild;
///   whoever comes second is refused.
/// - `rebuildingByte` (`Int64.max`): held by a rebuild as well, only so
///   that a refusal can say which of the two is in the way.
///
/// The kernel lets the locks go when the holder's descriptor closes, on
/// any exit, SIGKILL included: a crashed server leaves nothing to remove.
public final class ServerLock: Sendable {
    /// Byte offsets in `DB.pagelock`; see the type's documentation.
    public static let servingByte = Int64.max - 1
    public static let rebuildingByte = Int64.max

    /// Who holds the database.
    public enum Holder: Sendable, Equatable {
        case server
        case rebuild
    }

    public enum LockError: Error, Equatable, Sendable, CustomStringConvertible {
        /// Another process holds the database.
        case held(by: Holder)
        /// The lock file could not be opened or locked (`errno` kept).
        case failed(path: String, errno: Int32)

        public var description: String {
            switch self {
            case .held(.server): "a server is running on this database; stop it first"
            case .held(.rebuild): "a rebuild is running on this database; wait for it to finish"
            case .failed(let path, let code): "cannot lock \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    private let fd: Atomic<Int32>

    private init(fd: Int32) {
        self.fd = Atomic(fd)
    }

    deinit {
        release()
    }

    /// Takes the database at `path` for `holder`, or throws `.held` naming
    /// who has it. Never waits.
    public static func acquire(_ holder: Holder, database path: String) throws(LockError) -> ServerLock {
        let file = path + ".pagelock"
        // Close-on-exec: a child that inherited the description would hold
        // the lock after the server has gone.
        let fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .failed(path: file, errno: errno) }
        let lock = ServerLock(fd: fd)
        if holder == .rebuild {
            guard try take(fd, rebuildingByte, file) else { throw .held(by: .rebuild) }
        }
        guard try take(fd, servingByte, file) else {
            // A rebuild holds its own byte first: holding ours, the other
            // is a server.
            let rebuilding = holder == .server ? try rebuildRunning(file) : false
            throw .held(by: rebuilding ? .rebuild : .server)
        }
        return lock
    }

    /// Lets the database go (closing the description drops its locks).
    /// Later calls do nothing.
    public func release() {
        let old = fd.exchange(-1, ordering: .acquiringAndReleasing)
        if old >= 0 { close(old) }
    }

    /// Whether the lock on `byte` was taken; false when another holds it.
    private static func take(_ fd: Int32, _ byte: Int64, _ file: String) throws(LockError) -> Bool {
        while clinux_ofd_lock(fd, byte, 1) != 0 {
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EACCES { return false }
            throw .failed(path: file, errno: errno)
        }
        return true
    }

    /// Whether a rebuild holds its byte, asked on a description of our own
    /// so that the answer's lock goes with it.
    private static func rebuildRunning(_ file: String) throws(LockError) -> Bool {
        let fd = open(file, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .failed(path: file, errno: errno) }
        defer { close(fd) }
        return try !take(fd, rebuildingByte, file)
    }
}
