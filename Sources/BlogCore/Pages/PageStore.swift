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
        guard let data = FileManager.default.contents(atPath: url(for: user).path) else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    /// Writes a whole page: to a temporary file beside it, then renamed
    /// over it, so a reader sees the old page or the new one, never half.
    public func write(_ text: String, user: String) throws(PageError) {
        let target = url(for: user).path
        let temporary = folder.appendingPathComponent(".\(user).html.\(UInt64.random(in: 0 ... .max)).tmp").path
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
