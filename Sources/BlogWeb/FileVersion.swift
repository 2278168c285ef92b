import HTTPTypes

/// What tells one version of a page from the next, for conditional GETs:
/// its modification time and size, as nginx makes its `ETag`. blogd
/// replaces a page by renaming a new file over it, so every write makes a
/// new time, to the nanosecond.
///
///     let version = FileVersion(modifiedNanoseconds: 1_700_000_000_123_456_789, size: 52_000)
///     version.etag                                        // "\"17a1d6e2c4b2a5f15-cb20\""
///     version.isCurrent(ifNoneMatch: version.etag, ifModifiedSince: nil)   // true: answer 304
struct FileVersion: Equatable, Sendable {
    var modifiedNanoseconds: Int
    var size: Int

    /// A strong validator: quoted, hexadecimal time and size.
    var etag: String {
        "\"\(String(modifiedNanoseconds, radix: 16))-\(String(size, radix: 16))\""
    }

    var lastModified: String { HTTPDate.format(modifiedSeconds) }

    var modifiedSeconds: Int { modifiedNanoseconds / 1_000_000_000 }

    /// Whether a client holding what these request fields name already has
    /// this version (RFC 9110 §13.2.2: `If-None-Match` wins over
    /// `If-Modified-Since` when both are sent).
    func isCurrent(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
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
