import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a page could not be written.
public enum PageError: Error, Equatable, Sendable {
    case cannotWrite(path: String, errno: Int32)
}

/// The public web folder: each user's `NAME.html`, written atomically.
public struct PageStore: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// The page of `user`. Usernames hold no `/` or `.`, so this stays
    /// inside `folder`.
    public func url(for user: String) -> URL {
        folder.appendingPathComponent(user + ".html", isDirectory: false)
    }

    /// The page's current text, or `nil` when missing or unreadable.
    public func read(user: String) -> String? {
        read(file: user + ".html")
    }

    /// Writes the main page of `user`; see `write(_:file:)`.
    public func write(_ text: String, user: String) throws(PageError) {
        try write(text, file: user + ".html")
    }

    /// A file's text, or `nil` when missing, unreadable or not UTF-8.
    public func read(file name: String) -> String? {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    /// Whether a file of that name exists in the folder.
    public func exists(file name: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
    }

    /// Removes a file if it is there.
    public func remove(file name: String) {
        unlink(folder.appendingPathComponent(name).path)
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

    /// Writes a whole file: to a temporary file beside it, then renamed
    /// over it, so a reader sees the old page or the new one, never half.
    public func write(_ text: String, file name: String) throws(PageError) {
        let target = folder.appendingPathComponent(name).path
        let temporary = folder.appendingPathComponent(".\(name).\(UInt64.random(in: 0 ... .max)).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotWrite(path: temporary, errno: errno) }
        let bytes = Array(text.utf8)
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
