import BlogWire
import CVips
import CVipsShim

/// Turns an uploaded photo into images that are safe to publish.
///
///     let photo = try PhotoProcessor.process(upload, declaredType: "image/jpeg")
///     try write(photo.image, to: "\(id).jpg")
///     try write(photo.thumbnail, to: "\(id)-small.jpg")
///     if useThePhotosLocation { place = photo.location }
///
/// Checks come cheapest first, so that a hostile upload costs as little
/// as possible: the byte count, the magic bytes, the declared type, then
/// the image header, whose width x height is refused before a single
/// pixel is decoded. Only then is the photo decoded (shrunk on load where
/// the format allows), turned upright by its EXIF orientation, fitted
/// within `maxSide` (never enlarged), converted to sRGB, and saved as
/// JPEG with every metadata block stripped: EXIF (GPS, camera, serial
/// numbers), XMP, IPTC, ICC profile, comments.
///
/// Safe to call from several threads at once; each call decodes on its
/// caller's thread and at most one vips worker.
public enum PhotoProcessor {
    /// JPEG quality of both images: no visible loss for photos, about a
    /// third of the bytes of quality 95.
    public static let jpegQuality = 85

    /// MIME types that claim nothing: browsers send `application/octet-stream`
    /// for a format they do not know (HEIC, in some), so it is no lie.
    private static let unclaimedTypes: Set<String> = ["", "application/octet-stream"]

    /// - Parameters:
    ///   - bytes: the upload as received.
    ///   - declaredType: the MIME type the client gave (a multipart part's
    ///     `Content-Type`), or nil; `application/octet-stream` and an empty
    ///     type claim nothing and are not checked.
    ///   - limits: refusals before decoding, and the published sizes.
    /// - Throws: `PhotoError`, the first check that failed.
    public static func process(_ bytes: [UInt8], declaredType: String?,
                               limits: PhotoLimits = .init()) throws(PhotoError) -> ProcessedPhoto {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(bytes: bytes.count) }
        guard let kind = PhotoKind(sniffing: bytes) else { throw .unsupportedType }
        if let declaredType, !unclaimedTypes.contains(PhotoKind.essence(declaredType)),
           PhotoKind(mimeType: declaredType) != kind {
            throw .typeMismatch(declared: declaredType, actual: kind.mimeType)
        }
        try Vips.start()
        // vips reads the caller's bytes in place, so every image made from
        // them lives and dies inside this closure.
        return try bytes.withUnsafeBytes { buffer in
            Result { () throws(PhotoError) in try decode(buffer, kind: kind, limits: limits) }
        }.get()
    }

    private static func decode(_ buffer: UnsafeRawBufferPointer, kind: PhotoKind,
                               limits: PhotoLimits) throws(PhotoError) -> ProcessedPhoto {
        // Header only: vips's loaders are lazy, pixels come on first use.
        guard let header = blogphotos_open(kind.vipsKind, buffer.baseAddress, buffer.count) else {
            throw .unreadable(Vips.takeError())
        }
        defer { g_object_unref(header) }
        let width = Int(vips_image_get_width(header)), height = Int(vips_image_get_height(header))
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limits.maxPixels else { throw .tooManyPixels(width: width, height: height) }

        let location = exif(of: header).flatMap(ExifGPS.place(in:))
        let hasProfile = vips_image_get_typeof(header, "icc-profile-data") != 0

        guard let fitted = blogphotos_fit_buffer(buffer.baseAddress, buffer.count, Int32(clamping: limits.maxSide),
                                                 hasProfile ? 1 : 0) else {
            throw .unreadable(Vips.takeError())
        }
        defer { g_object_unref(fitted) }
        // Decodes the whole photo now, once, for both images; a truncated
        // or corrupt file fails here (the loaders fail on errors), not as
        // a half-grey picture.
        guard let upright = vips_image_copy_memory(fitted) else { throw .unreadable(Vips.takeError()) }
        defer { g_object_unref(upright) }
        let image = try jpeg(upright, progressive: true)

        guard let small = blogphotos_fit_image(upright, Int32(clamping: limits.thumbnailSide)) else {
            throw .encodeFailed(Vips.takeError())
        }
        defer { g_object_unref(small) }
        let thumbnail = try jpeg(small, progressive: false)

        return ProcessedPhoto(
            image: image, width: Int(vips_image_get_width(upright)), height: Int(vips_image_get_height(upright)),
            thumbnail: thumbnail, thumbnailWidth: Int(vips_image_get_width(small)),
            thumbnailHeight: Int(vips_image_get_height(small)), location: location)
    }

    /// The raw EXIF block the loader found, if any.
    private static func exif(of image: UnsafeMutablePointer<VipsImage>) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(image, "exif-data") != 0,
              vips_image_get_blob(image, "exif-data", &data, &length) == 0, let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    private static func jpeg(_ image: UnsafeMutablePointer<VipsImage>, progressive: Bool) throws(PhotoError) -> [UInt8] {
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard blogphotos_jpeg(image, Int32(jpegQuality), progressive ? 1 : 0, &output, &length) == 0,
              let output else { throw .encodeFailed(Vips.takeError()) }
        defer { g_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }
}

extension PhotoKind {
    var vipsKind: blogphotos_kind {
        switch self {
        case .jpeg: BLOGPHOTOS_JPEG
        case .png: BLOGPHOTOS_PNG
        case .webp: BLOGPHOTOS_WEBP
        case .heic: BLOGPHOTOS_HEIC
        }
    }
}
