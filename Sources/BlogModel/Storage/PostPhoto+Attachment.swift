/// A photo named for a post: one of the author's uploads (`storePhoto`),
/// with the alt text the post shows it with.
///
///     let attachment = try PhotoAttachment(name: photo.name, alt: PostPhoto.checkedAlt(" A red door\n"))
///     attachment.alt    // "A red door"
public struct PhotoAttachment: Sendable, Equatable, Hashable {
    public var name: String
    public var alt: String

    public init(name: String, alt: String = "") {
        self.name = name
        self.alt = alt
    }
}

/// Why an alt text was refused.
public enum AltTextError: Error, Equatable, Sendable {
    /// Longer than `PostPhoto.maxAltCharacters`.
    case tooLong
    /// A control character other than a tab or a line break.
    case controlCharacters
}

extension PostPhoto {
    /// The longest alt text, in code points: a long description fits, a
    /// flood does not (each one weighs on its post's pages).
    public static let maxAltCharacters = 1000

    /// `text` as an alt text: tabs and line breaks become spaces (an
    /// attribute is one line), runs of spaces one, the ends trimmed.
    /// Other control characters, or more than `maxAltCharacters`, are
    /// refused rather than stored.
    public static func checkedAlt(_ text: String) throws(AltTextError) -> String {
        guard !text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }) else {
            throw .controlCharacters
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        let alt = words.joined(separator: " ")
        guard alt.unicodeScalars.count <= maxAltCharacters else { throw .tooLong }
        return alt
    }

    /// The photos `names` as attachments without alt text.
    public static func attachments(_ names: [String]) -> [PhotoAttachment] {
        names.map { PhotoAttachment(name: $0) }
    }
}

extension PostPhoto {
    /// `photos` (as stored, in the attachments' order) with the
    /// attachments' alt texts.
    public static func withAlts(_ photos: [PostPhoto], _ attachments: [PhotoAttachment]) -> [PostPhoto] {
        zip(photos, attachments).map { photo, attachment in
            var photo = photo
            photo.alt = attachment.alt
            return photo
        }
    }

    /// A post's photos after an edit that wants `wanted`: each is one of
    /// `current` or of `fresh` (the uploads just checked as attachable,
    /// found by name), with the wanted alt text; and the ones of `current`
    /// left out. A store calls it once every name is known to be one of
    /// the two.
    public static func edited(_ current: [PostPhoto], to wanted: [PhotoAttachment],
                              adding fresh: [PostPhoto]) -> (photos: [PostPhoto], removed: [PostPhoto]) {
        let known = Dictionary((current + fresh).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let photos = wanted.compactMap { attachment in
            known[attachment.name].map { photo in
                var photo = photo
                photo.alt = attachment.alt
                return photo
            }
        }
        let staying = Set(wanted.map(\.name))
        return (photos, current.filter { !staying.contains($0.name) })
    }
}
