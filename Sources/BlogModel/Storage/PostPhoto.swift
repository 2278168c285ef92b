/// A published photo: its random name and sizes (the bytes live in the
/// database, `BlogStorage.storePhoto`; the files in the public folder are
/// derived from them, as the pages are from the posts).
///
///     let photo = PostPhoto(name: PostPhoto.newName(), width: 2048, height: 1536,
///                           thumbnailWidth: 480, thumbnailHeight: 360)
///     photo.file            // "photos/3f2a….jpg"
///     photo.thumbnailFile   // "photos/3f2a….t.jpg"
public struct PostPhoto: Sendable, Equatable, Hashable {
    /// 32 lowercase hex characters (128 random bits): unguessable, so an
    /// upload not yet on a post is seen by nobody but its author.
    public var name: String
    public var width: Int
    public var height: Int
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    /// What the photo shows, in words, for those who cannot see it (the
    /// `alt` of its `<img>` on every page and feed); '' when the author
    /// gave none. Kept with the post that shows it (`posts.photos`): a
    /// photo on no post has none.
    public var alt: String

    public init(name: String, width: Int, height: Int, thumbnailWidth: Int, thumbnailHeight: Int, alt: String = "") {
        self.name = name
        self.width = width
        self.height = height
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
        self.alt = alt
    }

    /// The most photos one post carries.
    public static let maxPerPost = 4

    /// The folder of the public folder that holds the photo files.
    public static let folder = "photos"

    /// A fresh name: 128 bits from the system's random source.
    public static func newName() -> String {
        var random = SystemRandomNumberGenerator()
        return hex(random.next()) + hex(random.next())
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// Whether `name` is one `newName` could have made: also what keeps a
    /// name from ever leaving the photo folder as a file name.
    public static func isValidName(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The image, relative to the public folder.
    public var file: String { "\(Self.folder)/\(name).jpg" }

    /// The thumbnail, relative to the public folder.
    public var thumbnailFile: String { "\(Self.folder)/\(name).t.jpg" }
}
