#if canImport(Glibc)
import Glibc
#endif

/// Opening a file below the public folder without ever leaving it.
///
/// The path is walked one name at a time from the folder itself, each step
/// with `O_NOFOLLOW`: a symbolic link anywhere below the folder (to a
/// folder or to a file) is refused, so no link can lead a request out of
/// it, whatever it points at. `PublicFolderHandler.fileName(for:)` has
/// already refused `..`, empty names and hidden files; this guards
/// against what is on disk. (The folder itself may be a link.)
///
///     if let fd = FolderFile.open("alice/17.html", in: "/srv/public") { defer { close(fd) } ... }
enum FolderFile {
    /// A descriptor for the regular file or folder `relative` (names joined
    /// by `/`) below `folder`, opened read-only; `nil` with `errno` set when
    /// it cannot: missing (`ENOENT`), a link on the way (`ELOOP` or
    /// `ENOTDIR`), ... The caller closes it.
    static func open(_ relative: String, in folder: String) -> Int32? {
        var current = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { return nil }
        let names = relative.split(separator: "/", omittingEmptySubsequences: false)
        for (index, name) in names.enumerated() {
            // O_NONBLOCK: opening a FIFO someone left there must not wait
            // for a writer; it changes nothing for a regular file.
            let flags = index == names.count - 1
                ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                : O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC
            let next = name.isEmpty ? -1 : openat(current, String(name), flags)
            let failure = name.isEmpty ? ENOENT : errno
            Glibc.close(current)
            guard next >= 0 else {
                errno = failure
                return nil
            }
            current = next
        }
        return current
    }

    /// Whether `relative` below `folder` is a regular file reached without
    /// a link.
    static func isRegularFile(_ relative: String, in folder: String) -> Bool {
        guard let fd = open(relative, in: folder) else { return false }
        defer { Glibc.close(fd) }
        var info = stat()
        return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
