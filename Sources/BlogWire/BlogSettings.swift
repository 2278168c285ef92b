/// A blog's own settings, each checked once, here, as `Title` is: the title
/// its pages and feed show, a line describing it, the author's display
/// name and the author's photo. A field left empty (or only whitespace) is
/// unset, and the pages say what they said before (`alice – blog`).
///
/// Every value is plain text, shown escaped; the photo is a path in the
/// public folder (`photos/3f2a….jpg`, a photo of one of the author's posts,
/// or a file the operator put there), never a URL of another site or a
/// scheme, so a setting can neither inject markup nor make readers'
/// browsers fetch from elsewhere.
///
///     let settings = try BlogSettings(title: "Notes", description: "Walks and bread",
///                                     authorName: "Alice A.", authorPhoto: "photos/3f2a….jpg")
public struct BlogSettings: Sendable, Hashable {
    /// The blog's title (`<title>`, the heading, the feed's title); nil: the
    /// user's name.
    public let title: String?
    /// One line under the heading, the feed's subtitle; nil: none.
    public let description: String?
    /// The author's name on the pages' h-card and the feed's author; nil:
    /// the user's name.
    public let authorName: String?
    /// The author's photo, a path relative to the public folder's top.
    public let authorPhoto: String?

    /// Nothing set: every page as it was before blogs had settings.
    public static let unset = BlogSettings(checked: nil, nil, nil, nil)

    /// The longest title, in characters (code points, as the schema's
    /// CHECK counts them).
    public static let maxTitleCharacters = 100
    /// The longest description, in characters: a search result's snippet
    /// shows about this much, and it goes into every page's head.
    public static let maxDescriptionCharacters = 300
    /// The longest display name, in characters.
    public static let maxAuthorNameCharacters = 100
    /// The longest photo path, in bytes (ASCII only).
    public static let maxPhotoPathBytes = 200

    /// The settings, every field checked; empty or whitespace-only text is
    /// unset, and text is trimmed of the whitespace around it.
    public init(title: String? = nil, description: String? = nil, authorName: String? = nil,
                authorPhoto: String? = nil) throws(BlogSettingsError) {
        self.title = try Self.line(title, .title, max: Self.maxTitleCharacters)
        self.description = try Self.line(description, .description, max: Self.maxDescriptionCharacters)
        self.authorName = try Self.line(authorName, .authorName, max: Self.maxAuthorNameCharacters)
        self.authorPhoto = try Self.photoPath(authorPhoto)
    }

    /// Values read back from a database, which held them to the same
    /// rules when they were stored (the schema's CHECKs bound the lengths).
    public init(stored title: String?, description: String?, authorName: String?, authorPhoto: String?) {
        self.init(checked: title, description, authorName, authorPhoto)
    }

    private init(checked title: String?, _ description: String?, _ authorName: String?, _ authorPhoto: String?) {
        self.title = title
        self.description = description
        self.authorName = authorName
        self.authorPhoto = authorPhoto
    }

    /// Whether nothing is set.
    public var isUnset: Bool { self == .unset }

    /// These settings with the fields of `change` that are given (non-nil)
    /// replaced; an empty string given clears its field.
    public func updating(title: String? = nil, description: String? = nil, authorName: String? = nil,
                         authorPhoto: String? = nil) throws(BlogSettingsError) -> BlogSettings {
        try BlogSettings(title: title ?? self.title, description: description ?? self.description,
                         authorName: authorName ?? self.authorName, authorPhoto: authorPhoto ?? self.authorPhoto)
    }

    private static func line(_ text: String?, _ field: BlogSettingsError.Field, max: Int) throws(BlogSettingsError) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        // Line breaks too: each of these is one line of a page's head.
        guard !trimmed.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .controlCharacters(field) }
        guard trimmed.unicodeScalars.count <= max else { throw .tooLong(field, max: max) }
        return trimmed
    }

    /// A path in the public folder: segments of `A-Z a-z 0-9 - _ .`, none
    /// empty or starting with a dot (no `..`, no hidden file, no `//`), not
    /// starting with `/`, ending in an image's extension.
    private static func photoPath(_ text: String?) throws(BlogSettingsError) -> String? {
        guard let text else { return nil }
        let path = text.trimmingWhitespace
        guard !path.isEmpty else { return nil }
        guard path.utf8.count <= maxPhotoPathBytes else { throw .tooLong(.authorPhoto, max: maxPhotoPathBytes) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard let first = segment.utf8.first, first != UInt8(ascii: "."),
                  segment.utf8.allSatisfy(isPathByte) else { throw .badPhotoPath }
        }
        let lower = path.lowercased()
        guard imageExtensions.contains(where: { lower.hasSuffix($0) }) else { throw .badPhotoPath }
        return path
    }

    /// The images the page server serves (`photos/NAME.jpg`, a PNG).
    private static let imageExtensions = [".jpg", ".png"]

    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}

/// Why blog settings were refused; nothing is stored.
public enum BlogSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting, as forms and `blogd blog set` name it.
    public enum Field: String, Sendable, Equatable {
        case title, description
        case authorName = "author name"
        case authorPhoto = "author photo"
    }

    case tooLong(Field, max: Int)
    /// A line break, tab or other control character in a one-line field.
    case controlCharacters(Field)
    /// A photo that is not a path in the public folder to an image.
    case badPhotoPath

    public var description: String {
        switch self {
        case .tooLong(.authorPhoto, let max):
            "the author photo's path is longer than \(max) bytes"
        case .tooLong(let field, let max):
            "the \(field.rawValue) is longer than \(max) characters"
        case .controlCharacters(let field):
            "the \(field.rawValue) must be one line, without control characters"
        case .badPhotoPath:
            "the author photo must be a path in the public folder to a .jpg or .png image, e.g. photos/NAME.jpg "
                + "(letters, digits, - _ . and /, no part starting with a dot)"
        }
    }
}

extension String {
    /// The string without the whitespace (and line breaks) around it.
    fileprivate var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
