import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where page writes make their temporary files and keep their spares:
/// a folder beside the public folder, not in it. A spare holds an old
/// page (a deleted post's text, say), and any server that lists the
/// public folder (`python3 -m http.server`, nginx's autoindex, an rsync
/// to a host) would publish what is in it; blogd's own answers 404 for
/// hidden names, others do not.
///
/// The folder is `.NAME.blogd-staging` beside the public folder `NAME`,
/// mode 0700, on the same file system (a page goes into place by a rename
/// or a swap, which cannot cross file systems). An operator whose public
/// folder's parent is not writable can make it beforehand.
struct StagingFolder: Sendable {
    /// Why there is no staging folder; page writes then make their
    /// temporary files beside the pages and keep no spares.
    enum Unusable: Error, Equatable, Sendable, CustomStringConvertible {
        /// It could not be made or looked at.
        case cannotMake(path: String, errno: Int32)
        /// It is there but a link, a file, or someone else's folder.
        case notOwnFolder(path: String)
        /// It is on another file system than the public folder.
        case otherFileSystem(path: String)

        var description: String {
            switch self {
            case .cannotMake(let path, let errno):
                "cannot make \(path): \(String(cString: strerror(errno)))"
            case .notOwnFolder(let path):
                "\(path) is not a folder of this user"
            case .otherFileSystem(let path):
                "\(path) is not on the public folder's file system"
            }
        }
    }

    /// The folder's path, without a trailing `/`.
    let path: String

    /// The staging folder's default place for the public folder `folder`.
    static func defaultPath(for folder: URL) -> String {
        let public_ = folder.standardizedFileURL
        let parent = public_.deletingLastPathComponent().path
        return (parent.hasSuffix("/") ? parent : parent + "/") + "." + public_.lastPathComponent + ".blogd-staging"
    }

    /// Makes (or takes) the folder at `path` for the public folder at
    /// `publicPath`: made 0700 when missing; when there, it must be a
    /// folder (not a link) of this user, and is set to 0700.
    static func prepare(_ path: String, publicPath: String) throws(Unusable) -> StagingFolder {
        var publicInfo = stat()
        guard stat(publicPath, &publicInfo) == 0 else { throw .cannotMake(path: publicPath, errno: errno) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .cannotMake(path: path, errno: errno) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .cannotMake(path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid() else { throw .notOwnFolder(path: path) }
        guard info.st_dev == publicInfo.st_dev else { throw .otherFileSystem(path: path) }
        if (info.st_mode & 0o777) != 0o700 && chmod(path, 0o700) != 0 { throw .cannotMake(path: path, errno: errno) }
        return StagingFolder(path: path)
    }

    /// Removes every file in the folder; returns how many.
    @discardableResult
    func empty() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var removed = 0
        for name in names where unlink(path + "/" + name) == 0 { removed += 1 }
        return removed
    }
}
