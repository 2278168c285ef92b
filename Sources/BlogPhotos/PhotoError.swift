/// Why an upload was refused. Each case keeps what a log needs; its
/// `description` is a short sentence for the uploader's error page.
///
///     do { _ = try PhotoProcessor.process(bytes, declaredType: part.contentType) }
///     catch { page(status: error.isClientError ? 400 : 500, text: error.description) }
public enum PhotoError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// More bytes than `PhotoLimits.maxBytes`; nothing was decoded.
    case tooLarge(bytes: Int)
    /// The header claims more pixels than `PhotoLimits.maxPixels`; no
    /// pixel was decoded.
    case tooManyPixels(width: Int, height: Int)
    /// Not JPEG, PNG, WebP or HEIC by its magic bytes.
    case unsupportedType
    /// The declared MIME type (a multipart part's `Content-Type`, say)
    /// names another format than the bytes are.
    case typeMismatch(declared: String, actual: String)
    /// libvips could not decode it (truncated, corrupt): vips's own text.
    case unreadable(String)
    /// libvips could not make the JPEG: vips's own text.
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes):
            "The photo is too large (\(Self.megabytes(bytes)) MB)."
        case .tooManyPixels(let width, let height):
            "The photo has too many pixels (\(width) x \(height))."
        case .unsupportedType:
            "The file is not a JPEG, PNG, WebP or HEIC image."
        case .typeMismatch(let declared, let actual):
            "The file was sent as \(declared) but is \(actual)."
        case .unreadable:
            "The photo could not be read: it may be damaged or incomplete."
        case .encodeFailed:
            "The photo could not be converted."
        }
    }

    /// True when the upload is at fault (HTTP 4xx), false for the server's
    /// own failure to encode (5xx).
    public var isClientError: Bool {
        if case .encodeFailed = self { return false }
        return true
    }

    /// `bytes` in decimal megabytes with one decimal, rounded down, so
    /// that a file just over the limit never reads as the limit itself.
    private static func megabytes(_ bytes: Int) -> String {
        "\(bytes / 1_000_000).\(bytes % 1_000_000 / 100_000)"
    }
}
