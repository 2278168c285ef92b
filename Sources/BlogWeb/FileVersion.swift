import Foundation
import HTTPTypes

/// What tells one version of a page from the next, for conditional GETs
/// and the pages kept in memory: its inode, modification time and size.
/// blogd replaces a page by renaming a new file over it, so every write is
/// a new inode, even within one tick of the file system's clock (a few
/// milliseconds, in which two writes of one size would share a time).
///
///     let version = FileVersion(inode: 1234, modifiedNanoseconds: 1_700_000_000_123_456_789, size: 52_000)
///     version.etag                                        // "\"4d2-17a1d6e2c4b2a5f15-cb20\""
///     version.isCurrent(ifNoneMatch: version.etag, ifModifiedSince: nil)   // true: answer 304
struct FileVersion: Equatable, Sendable {
    var inode: UInt64
    var modifiedNanoseconds: Int
    var size: Int

    /// A strong validator: quoted, hexadecimal inode, time and size.
    var etag: String {
        "\"\(String(inode, radix: 16))-\(String(modifiedNanoseconds, radix: 16))-\(String(size, radix: 16))\""
    }

    /// The version `info` (from `stat`) describes.
    init(_ info: stat) {
        self.init(inode: UInt64(info.st_ino), modifiedNanoseconds: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec),
                  size: Int(info.st_size))
    }

    init(inode: UInt64, modifiedNanoseconds: Int, size: Int) {
        self.inode = inode
        self.modifiedNanoseconds = modifiedNanoseconds
        self.size = size
    }

    var lastModified: String { HTTPDate.format(modifiedSeconds) }

    var modifiedSeconds: Int { modifiedNanoseconds / 1_000_000_000 }

    /// Whether a client holding what these request fields name already has
    /// this version (RFC 9110 §13.2.2: `If-None-Match` wins over
    /// `If-Modified-Since` when both are sent).
    func isCurrent(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        isCurrent(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, etag: etag)
    }

    /// The same, with this version's `etag` made already.
    func isCurrent(ifNoneMatch: String?, ifModifiedSince: String?, etag: String) -> Bool {
        if let ifNoneMatch {
            return ifNoneMatch.split(separator: ",").contains { tag in
                let tag = tag.trimmingPrefix(while: \.isWhitespace)
                // Weak comparison, as GET allows: W/"x" matches "x".
                let bare = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
                return bare == "*" || bare.trimmingSuffix(while: \.isWhitespace) == etag
            }
        }
        if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince) {
            return modifiedSeconds <= since
        }
        return false
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
