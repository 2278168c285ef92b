import BlogModel

/// A post's photos on its pages and in the feeds: thumbnails that link to
/// the images, before the post's text.
extension PageRenderer {
    /// Appends `<figure class="photos">` with one linked thumbnail per
    /// photo, its alt text escaped as an attribute, nothing for none. `base` goes before each file's path: ""
    /// on the pages (their links are relative to the public folder's top,
    /// a post's own page says so with its `<base>`), the site's URL in a
    /// feed, whose readers need absolute ones.
    static func appendPhotos(_ photos: [PostPhoto], base: String, to out: inout [UInt8]) {
        guard !photos.isEmpty else { return }
        out += figureStart
        for photo in photos {
            out += photoLinkStart
            HTMLEscape.append(base, to: &out)
            HTMLEscape.append(photo.file, to: &out)
            out += thumbnailStart
            HTMLEscape.append(base, to: &out)
            HTMLEscape.append(photo.thumbnailFile, to: &out)
            out += widthStart
            out += Array(String(photo.thumbnailWidth).utf8)
            out += heightStart
            out += Array(String(photo.thumbnailHeight).utf8)
            out += altStart
            HTMLEscape.append(photo.alt, to: &out)
            out += photoEnd
        }
        out += figureEnd
    }

    /// What `photos` weigh on a page: their markup's bytes (a page group's
    /// byte limit counts them as it counts text).
    public static func weight(photos: [PostPhoto]) -> Int {
        guard !photos.isEmpty else { return 0 }
        var out: [UInt8] = []
        appendPhotos(photos, base: "", to: &out)
        return out.count
    }

    /// What a post weighs on a page: its text and its photos.
    public static func weight(title: String, content: String, photos: [PostPhoto]) -> Int {
        weight(title: title, content: content) + weight(photos: photos)
    }

    private static let figureStart = Array("<figure class=\"photos\">".utf8)
    private static let photoLinkStart = Array("<a href=\"".utf8)
    /// `u-photo`: the post's photo (with its alt) in its `h-entry`.
    private static let thumbnailStart = Array("\"><img class=\"u-photo\" src=\"".utf8)
    private static let widthStart = Array("\" width=\"".utf8)
    private static let heightStart = Array("\" height=\"".utf8)
    private static let altStart = Array("\" alt=\"".utf8)
    private static let photoEnd = Array("\" loading=\"lazy\"></a>".utf8)
    private static let figureEnd = Array("</figure>".utf8)
}
