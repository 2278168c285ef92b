import BlogWire

/// A photo ready to publish: JPEG images with no metadata at all, and the
/// position the original carried, for the author to use or not.
///
///     let photo = try PhotoProcessor.process(upload, declaredType: "image/heic")
///     html += "<img src=\"\(name)\" width=\"\(photo.width)\" height=\"\(photo.height)\">"
///     let place = useThePhotosLocation ? photo.location : nil
public struct ProcessedPhoto: Equatable, Sendable {
    /// The published image: JPEG, upright, sRGB, longest side at most
    /// `PhotoLimits.maxSide`.
    public var image: [UInt8]
    public var width: Int
    public var height: Int
    /// The thumbnail: JPEG, longest side at most `PhotoLimits.thumbnailSide`.
    public var thumbnail: [UInt8]
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    /// The GPS position in the original's EXIF, if any. It is never
    /// written into `image` or `thumbnail`: publishing it is the author's
    /// choice ("use the photo's location").
    public var location: Place?

    public init(image: [UInt8], width: Int, height: Int, thumbnail: [UInt8], thumbnailWidth: Int,
                thumbnailHeight: Int, location: Place?) {
        self.image = image
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
        self.location = location
    }
}
