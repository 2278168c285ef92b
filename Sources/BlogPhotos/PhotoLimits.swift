/// What an upload may be, and how large the published images are.
///
/// The byte and pixel limits are checked before any pixel is decoded:
/// `maxPixels` bounds the memory a decode can take, whatever the file's
/// size (a PNG of a few kilobytes can claim 30,000 x 30,000 pixels).
///
///     let limits = PhotoLimits(maxBytes: 5 << 20)   // 5 MiB, the rest default
public struct PhotoLimits: Equatable, Hashable, Sendable {
    /// The largest upload accepted, in bytes (default 10 MiB).
    public var maxBytes: Int
    /// The largest decoded image accepted, width x height (default 50 MP:
    /// a 48 MP phone camera passes, a decompression bomb does not).
    public var maxPixels: Int
    /// The longest side of the published image (default 2048); smaller
    /// photos are published at their own size.
    public var maxSide: Int
    /// The longest side of the thumbnail (default 480).
    public var thumbnailSide: Int

    public init(maxBytes: Int = 10 << 20, maxPixels: Int = 50_000_000, maxSide: Int = 2048, thumbnailSide: Int = 480) {
        precondition(maxBytes > 0 && maxPixels > 0 && maxSide > 0 && thumbnailSide > 0, "photo limits must be positive")
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.thumbnailSide = thumbnailSide
    }
}
