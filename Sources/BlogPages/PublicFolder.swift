import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why a page could not be written.
public enum PageError: Error, Equatable, Sendable {
    case cannotWrite(path: String, errno: Int32)
}

/// The public web folder: the pages, each written whole and atomically.
public struct PublicFolder: Sendable {
    public let folder: URL
    /// Who is told of each file written or removed.
    public let changes: PageChanges
    /// Old pages swapped out, kept to be written over (see `write`).
    let spares = SpareFiles()
    /// Where temporary files and spares live, outside `folder`.
    private let staging: StagingState
    /// `folder`'s path, ending in `/`.
    private let prefix: String

    /// - Parameter staging: the folder for temporary files and spares
    ///   (default: `.NAME.blogd-staging` beside the public folder `NAME`;
    ///   see `StagingFolder`). Made at the first write.
    public init(folder: URL, changes: PageChanges = PageChanges(), staging: String? = nil) {
        self.folder = folder
        self.changes = changes
        let path = folder.path
        prefix = path.hasSuffix("/") ? path : path + "/"
        self.staging = StagingState(path: staging ?? StagingFolder.defaultPath(for: folder), publicPath: path)
    }

    /// The staging folder's path, whether or not it could be made.
    public var stagingPath: String { staging.path }

    /// Why page writes cannot stage outside the public folder (`nil`: they
    /// do). Without it, a write makes its temporary file beside the page
    /// (a hidden name, for the moment of the write, holding the new page)
    /// and deletes the old page at once instead of keeping it as a spare:
    /// nothing old stays in the public folder, at the CPU cost the spares
    /// save. Makes the folder when not yet made.
    public var stagingProblem: String? {
        if case .failure(let problem) = staging.folder() { return problem.description }
        return nil
    }

    /// The main page of `user`. Usernames hold no `/` or `.`, so this stays
    /// inside `folder`.
    public func url(for user: String) -> URL {
        folder.appendingPathComponent(PageRenderer.mainFile(user: user), isDirectory: false)
    }

    /// The main page's current text, or `nil` when missing or not UTF-8.
    public func read(user: String) -> String? {
        read(file: PageRenderer.mainFile(user: user))
    }

    /// A file's text, or `nil` when missing, unreadable or not UTF-8.
    public func read(file name: String) -> String? {
        contents(of: name).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// A file's bytes, or `nil` when missing or unreadable.
    public func contents(of name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: prefix + name).map { Array($0) }
    }

    /// Whether a file of that name exists in the folder.
    public func exists(file name: String) -> Bool {
        access(prefix + name, F_OK) == 0
    }

    /// Removes a file if it is there.
    public func remove(file name: String) {
        unlink(prefix + name)
        changes.changed(name)
    }

    /// Removes temporary files a crash left behind: those in the staging
    /// folder, and the hidden `.NAME.html.N.tmp` that versions before it
    /// (or a write without it) made in the folder and the folders of post
    /// pages in it. Call it only while nothing writes pages. Returns how
    /// many it removed.
    @discardableResult
    public func removeLeftoverTemporaries() -> Int {
        // This process's own spares are not leftovers: not counted.
        dropSpares()
        var removed = 0
        if case .success(let folder) = staging.folder() { removed += folder.empty() }
        for name in files(in: "") {
            if Self.isTemporary(name) {
                remove(file: name)
                removed += 1
            } else if isFolder(name) {
                for inner in files(in: name) where Self.isTemporary(inner) {
                    remove(file: name + "/" + inner)
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Asks the file system to place each blog's folder where inodes are
    /// free rather than beside the public folder (ext4's "top directory"
    /// flag; elsewhere a no-op). Every post makes one file, and ext4
    /// looks a new inode up past each one deleted in the last minutes in
    /// the folder's block group: beside a busy temporary folder that was
    /// most of a post's CPU. Returns whether the flag is set.
    @discardableResult
    public func spreadBlogFolders() -> Bool {
        clinux_mark_topdir(folder.path) == 0
    }

    /// Removes the spares (old pages kept to be written over), and the
    /// staging folder when nothing else is in it: at a stop (or a failed
    /// start), once nothing writes pages. Another instance's files there
    /// are left alone; a later write makes the folder again.
    public func removeSpares() {
        dropSpares()
        staging.remove()
    }

    /// Deletes every spare this process keeps, at once: a spare holds an
    /// old page, and when a post or a user leaves the pages their text
    /// must not stay on disk in one. Safe while pages are written (a spare
    /// taken is being written over already; the next write makes a new
    /// temporary file).
    public func dropSpares() {
        for path in spares.drain() { unlink(path) }
    }

    private static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// The names in a folder of the public folder ("" for itself).
    public func files(in folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: prefix + folder)) ?? []
    }

    /// Whether `name` is a folder (not a link to one).
    public func isFolder(_ name: String) -> Bool {
        var info = stat()
        return lstat(prefix + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes a folder of the public folder and what it holds.
    public func removeFolder(_ name: String) {
        guard isFolder(name) else { return }
        try? FileManager.default.removeItem(atPath: prefix + name)
    }

    /// Writes `bytes` as the file `name` unless it holds them already:
    /// for pages written at every start and stop whether or not anything
    /// changed (the index and the site feed), so that a reader's
    /// conditional GET after a restart still finds the file unchanged
    /// (same inode, same time). Returns whether it wrote.
    @discardableResult
    public func writeIfChanged(_ bytes: [UInt8], file name: String) throws(PageError) -> Bool {
        if contents(of: name) == bytes { return false }
        try write(bytes, file: name)
        return true
    }

    /// Writes `text` as the file `name`; see `write(_:file:)` for bytes.
    public func write(_ text: String, file name: String) throws(PageError) {
        try write(Array(text.utf8), file: name)
    }

    /// Writes a whole file: to a temporary file in the staging folder
    /// (beside the public folder, see `StagingFolder`), then swapped with
    /// the old one in one step (`renameat2` with `RENAME_EXCHANGE`). A
    /// reader sees the old page or the new one, never half, and no other
    /// name ever appears in the public folder.
    ///
    /// Why a swap and not a rename over the old file: ext4 (`auto_da_alloc`)
    /// makes a rename that replaces a file wait for the new file's blocks
    /// to be allocated and written, about 450 µs a page here against 100
    /// for the swap. That protects files a program cannot rebuild; a page
    /// can be: after a power cut, the start-up check rewrites any page
    /// that is not what the database says. Where the file system cannot
    /// swap, or the page is new, it is a plain rename.
    ///
    /// The old page a swap leaves under the temporary name is not removed
    /// but kept (up to `SpareFiles.limit`) and written over by a later
    /// write: ext4 looks a new inode up past every recently deleted one,
    /// and three pages a post made creating and deleting inodes cost most
    /// of a post's CPU (68% in the kernel, `recently_deleted`). Spares
    /// stay in the staging folder, never in the public one, and are
    /// deleted whenever a post or a user leaves the pages (`dropSpares`).
    /// Without a staging folder no spare is kept.
    ///
    /// `name` may name a file in a folder (`alice/17.html`): the folder is
    /// made when missing. `new` says the file is not there yet (a new
    /// post's page): it is then made new, not from a spare, and renamed
    /// into place without a swap (were it there after all, the rename
    /// replaces it as atomically).
    public func write(_ bytes: [UInt8], file name: String, new: Bool = false) throws(PageError) {
        do {
            try writeFile(bytes, file: name, new: new)
            PageMetrics.shared.writes.increment()
        } catch {
            PageMetrics.shared.writeErrors.increment()
            throw error
        }
    }

    private func writeFile(_ bytes: [UInt8], file name: String, new: Bool) throws(PageError) {
        let target = prefix + name
        let slash = name.lastIndex(of: "/")
        let folderPart = slash.map { String(name[...$0]) } ?? ""
        let base = slash.map { String(name[name.index(after: $0)...]) } ?? name
        // A new file is made unnamed in its own folder: its inode in that
        // folder's block group (see `spreadBlogFolders`), not the staging
        // folder's, where ext4 looked past every inode deleted lately
        // (twice the CPU a post), and no name of it is ever listed.
        if new, try linkNew(bytes, target: target, folderPart: folderPart) {
            changes.changed(name)
            return
        }
        let staged = try? staging.folder().get()
        var temporary = staged.map { "\($0.path)/\(UInt64.random(in: 0 ... .max)).tmp" }
            ?? prefix + folderPart + ".\(base).\(UInt64.random(in: 0 ... .max)).tmp"
        var fd: Int32 = -1
        var overSpare = false
        // A new file (a post's page, a photo) takes no spare: it stays, so
        // a spare taken for it is one fewer for the swaps, and the next
        // one would make its inode anyway.
        if !new, staged != nil, let spare = spares.take() {
            // Written over, then cut to length, not opened with O_TRUNC:
            // ext4 writes a file truncated to zero out at its close
            // (auto_da_alloc), 80 µs a page against 15.
            fd = open(spare, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { temporary = spare; overSpare = true } else { unlink(spare) }
        }
        if fd < 0 { fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if fd < 0 && errno == ENOENT && staged != nil {
            // Another instance sharing the folder removed it at its stop.
            staging.remake()
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        } else if fd < 0 && errno == ENOENT && !folderPart.isEmpty {
            // A blog's first post page: its folder comes with it.
            if mkdir(prefix + folderPart, 0o755) != 0 && errno != EEXIST {
                throw .cannotWrite(path: prefix + folderPart, errno: errno)
            }
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw .cannotWrite(path: temporary, errno: errno) }
        var written = 0
        var failure: Int32 = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            written += n
        }
        if failure == 0 && overSpare && ftruncate(fd, off_t(bytes.count)) != 0 { failure = errno }
        close(fd)
        if failure == 0 {
            var outcome = new ? Self.rename(temporary, to: target) : Self.replace(target, with: temporary)
            if case .failed(ENOENT) = outcome, !folderPart.isEmpty {
                // A blog's first page: its folder comes with it.
                if mkdir(prefix + folderPart, 0o755) == 0 || errno == EEXIST {
                    outcome = Self.replace(target, with: temporary)
                }
            }
            switch outcome {
            case .swapped:
                // Without a staging folder the old page would stay in the
                // public folder; and the site-wide pages hold every blog's
                // text yet are written outside any blog's lock, after a
                // deletion's `dropSpares` (see `Self.neverKept`).
                if staged != nil && !Self.neverKept.contains(name) { keepSpare(temporary) } else { unlink(temporary) }
            case .renamed:
                break
            case .failed(let errno):
                failure = errno
            }
            if failure == 0 { changes.changed(name) }
        }
        if failure != 0 {
            unlink(temporary)
            throw .cannotWrite(path: target, errno: failure)
        }
    }

    /// Writes a new file unnamed (`O_TMPFILE`) in its folder, made when
    /// missing, and links it into place once whole. False when the file
    /// system cannot, or the file is there after all: the caller writes it
    /// the usual way.
    private func linkNew(_ bytes: [UInt8], target: String, folderPart: String) throws(PageError) -> Bool {
        let folderPath = prefix + folderPart
        var fd = clinux_open_tmpfile(folderPath, 0o644)
        if fd < 0 && errno == ENOENT && !folderPart.isEmpty {
            if mkdir(folderPath, 0o755) != 0 && errno != EEXIST { throw .cannotWrite(path: folderPath, errno: errno) }
            fd = clinux_open_tmpfile(folderPath, 0o644)
        }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .cannotWrite(path: target, errno: errno)
            }
            written += n
        }
        if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 { return true }
        if errno == EEXIST { return false }
        throw .cannotWrite(path: target, errno: errno)
    }

    /// Pages whose old copies are deleted, never kept: they show the
    /// newest posts of every blog and are written at most once a second,
    /// so their inodes cost little.
    static let neverKept: Set<String> = [IndexPage.fileName, PageRenderer.siteFeedFile]

    /// Keeps the old page now under `path` (in the staging folder) as a
    /// spare; one deleted meanwhile is found missing when taken and made
    /// again.
    private func keepSpare(_ path: String) {
        if !spares.give(path) { unlink(path) }
    }

    private enum Replacement {
        /// The old file is now under the temporary name.
        case swapped
        /// There was no old file (or no swap): the temporary name is gone.
        case renamed
        case failed(Int32)
    }

    private static func rename(_ temporary: String, to target: String) -> Replacement {
        Glibc.rename(temporary, target) == 0 ? .renamed : .failed(errno)
    }

    /// Puts `temporary` in place of `target`.
    private static func replace(_ target: String, with temporary: String) -> Replacement {
        // A swap would also trade places with a folder (or a link): only a
        // page file is ever replaced.
        var info = stat()
        if lstat(target, &info) != 0 {
            // A new page: nothing to swap with.
            guard errno == ENOENT else { return .failed(errno) }
            return Glibc.rename(temporary, target) == 0 ? .renamed : .failed(errno)
        }
        if (info.st_mode & S_IFMT) != S_IFREG { return .failed(EISDIR) }
        if clinux_rename_exchange(temporary, target) == 0 { return .swapped }
        switch errno {
        case ENOENT, EINVAL, ENOSYS, EOPNOTSUPP:
            return Glibc.rename(temporary, target) == 0 ? .renamed : .failed(errno)
        default:
            return .failed(errno)
        }
    }
}

/// The staging folder, made at the first write that needs it (so that a
/// store only read makes nothing), and again after a stop removed it.
final class StagingState: Sendable {
    let path: String
    private let publicPath: String
    private let state = Mutex<Result<StagingFolder, StagingFolder.Unusable>?>(nil)

    init(path: String, publicPath: String) {
        self.path = path
        self.publicPath = publicPath
    }

    func folder() -> Result<StagingFolder, StagingFolder.Unusable> {
        state.withLock { state in
            if let state { return state }
            let made = Result { () throws(StagingFolder.Unusable) in try StagingFolder.prepare(path, publicPath: publicPath) }
            // The public folder missing is the write's own error, and may
            // be put right: not remembered.
            if case .failure(.cannotMake(let failed, _)) = made, failed == publicPath { return made }
            state = made
            return made
        }
    }

    /// Makes the folder again (another instance removed it).
    func remake() {
        state.withLock { state in
            if case .success = state { _ = mkdir(path, 0o700) }
        }
    }

    /// Removes the folder if empty; the next write makes it again.
    func remove() {
        state.withLock { state in
            if case .success(let folder) = state { rmdir(folder.path) }
            state = nil
        }
    }
}
