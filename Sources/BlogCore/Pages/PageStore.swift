import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a page could not be written.
public enum PageError: Error, Equatable, Sendable {
    case cannotWrite(path: String, errno: Int32)
}

/// The public web folder: the pages, each written whole and atomically.
public struct PageStore: Sendable {
    public let folder: URL
    /// `folder`'s path, ending in `/`.
    private let prefix: String

    public init(folder: URL) {
        self.folder = folder
        let path = folder.path
        prefix = path.hasSuffix("/") ? path : path + "/"
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
    }

    /// Removes temporary files a crash left behind (`.NAME.html.N.tmp`).
    /// Call it only while nothing writes pages. Returns how many it removed.
    @discardableResult
    public func removeLeftoverTemporaries() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let leftovers = names.filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") }
        leftovers.forEach { remove(file: $0) }
        return leftovers.count
    }

    /// Writes `text` as the file `name`; see `write(_:file:)` for bytes.
    public func write(_ text: String, file name: String) throws(PageError) {
        try write(Array(text.utf8), file: name)
    }

    /// Writes a whole file: to a temporary file beside it, then renamed
    /// over it, so a reader sees the old page or the new one, never half.
    public func write(_ bytes: [UInt8], file name: String) throws(PageError) {
        let target = prefix + name
        let temporary = prefix + ".\(name).\(UInt64.random(in: 0 ... .max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
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
        close(fd)
        if failure == 0, rename(temporary, target) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw .cannotWrite(path: target, errno: failure)
        }
    }
}
