import Foundation

/// The photos of a post as its row keeps them (`posts.photos`), so that
/// every read of posts has them without a join: `name:w:h:tw:th` per
/// photo, then `:ALT` when it has alt text (percent-encoded UTF-8, so that
/// it holds no space or colon), in the post's order, joined by spaces; ''
/// for none. One text for both backends.
extension PostPhoto {
    public static func columnText(_ photos: [PostPhoto]) -> String {
        photos.map { photo in
            let sizes = "\(photo.name):\(photo.width):\(photo.height):\(photo.thumbnailWidth):\(photo.thumbnailHeight)"
            return photo.alt.isEmpty ? sizes : sizes + ":" + encoded(photo.alt)
        }.joined(separator: " ")
    }

    /// The photos of a column's text; a part that is not one (the column
    /// was changed by hand) is left out rather than shown broken.
    public static func photos(columnText text: String) -> [PostPhoto] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: " ").compactMap { part in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 5 || fields.count == 6, isValidName(String(fields[0])) else { return nil }
            let sizes = fields.dropFirst().prefix(4).compactMap { Int($0) }
            guard sizes.count == 4, sizes.allSatisfy({ $0 > 0 }) else { return nil }
            let alt = fields.count == 6 ? String(fields[5]).removingPercentEncoding ?? "" : ""
            return PostPhoto(name: String(fields[0]), width: sizes[0], height: sizes[1],
                             thumbnailWidth: sizes[2], thumbnailHeight: sizes[3], alt: alt)
        }
    }

    /// Every byte but the unreserved ones of RFC 3986 as `%XX`.
    private static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Throws `.unknownPhoto` for names that no store could attach to one
    /// post: more than `maxPerPost`, one named twice, or one that is no
    /// photo's name. Checked before the database is asked.
    public static func checkAttachable(_ names: [String]) throws(StorageError) {
        guard names.count <= maxPerPost, Set(names).count == names.count, names.allSatisfy(isValidName) else {
            throw .unknownPhoto
        }
    }
}
