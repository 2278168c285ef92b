/// The photos of a post as its row keeps them (`posts.photos`), so that
/// every read of posts has them without a join: `name:w:h:tw:th` per
/// photo, in the post's order, joined by spaces; '' for none. One text for
/// both backends.
extension PostPhoto {
    public static func columnText(_ photos: [PostPhoto]) -> String {
        photos.map { "\($0.name):\($0.width):\($0.height):\($0.thumbnailWidth):\($0.thumbnailHeight)" }
            .joined(separator: " ")
    }

    /// The photos of a column's text; a part that is not one (the column
    /// was changed by hand) is left out rather than shown broken.
    public static func photos(columnText text: String) -> [PostPhoto] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: " ").compactMap { part in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 5, isValidName(String(fields[0])) else { return nil }
            let sizes = fields.dropFirst().compactMap { Int($0) }
            guard sizes.count == 4, sizes.allSatisfy({ $0 > 0 }) else { return nil }
            return PostPhoto(name: String(fields[0]), width: sizes[0], height: sizes[1],
                             thumbnailWidth: sizes[2], thumbnailHeight: sizes[3])
        }
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
