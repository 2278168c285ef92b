import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Puts a finished file in place under its final name, so that the name
/// never shows a half-written file: the file is written beside it under a
/// temporary name, flushed, then moved in, and the move flushed too.
enum FileInstall {
    /// A failed system call, with its `errno`.
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let path: String
        let errno: Int32
        var exists: Bool { errno == EEXIST }

        var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }
    }

    /// A name for the file being written, in `target`'s folder (a rename
    /// does not cross file systems) and unique to this process.
    static func temporaryPath(for target: String) -> String {
        "\(target).tmp-\(getpid())"
    }

    /// Removes the temporary file and what SQLite may have left beside it.
    static func discard(_ temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }

    /// Flushes `temporary` and gives it the name `target`; without
    /// `replace`, fails with `.exists` rather than take the place of a file
    /// that appeared meanwhile. The folder is flushed after, so the name
    /// survives a power cut.
    static func install(_ temporary: String, as target: String, replace: Bool) throws(Failure) {
        try sync(temporary, flags: O_RDONLY)
        if replace {
            guard rename(temporary, target) == 0 else { throw Failure(call: "rename", path: target, errno: errno) }
        } else {
            // link(2) never replaces: it fails with EEXIST instead.
            guard link(temporary, target) == 0 else { throw Failure(call: "link", path: target, errno: errno) }
            unlink(temporary)
        }
        try sync(URL(fileURLWithPath: target).deletingLastPathComponent().path, flags: O_RDONLY | O_DIRECTORY)
    }

    private static func sync(_ path: String, flags: Int32) throws(Failure) {
        let fd = open(path, flags | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(call: "fsync", path: path, errno: errno) }
    }
}
