/// One parser of untrusted input and the check that feeds it an input.
/// Every invariant is a `precondition`, so a violation is a crash that
/// libFuzzer reports with the input that caused it.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// The blog port's framing and requests.
    case codec
    /// PROXY protocol v1 and v2 headers before the blog port's first frame.
    case proxy
    /// `multipart/form-data` bodies of the web client and Micropub.
    case multipart
    /// URL-encoded form bodies and query strings.
    case form
    /// Cookie header fields.
    case cookie
    /// Micropub POST bodies, JSON or form-encoded.
    case micropub
    /// The GPS position in an uploaded photo's EXIF block.
    case exif
    /// A Webmention source page: HTML read for links and microformats.
    case webmention
    /// Webmention endpoint discovery: a target's `Link` header and HTML.
    case discovery
    /// An ActivityPub inbox body.
    case inbox

    /// Checks one input; crashes on any broken invariant.
    func check(_ data: [UInt8]) {
        switch self {
        case .codec: checkCodec(data)
        case .proxy: checkProxyHeader(data)
        case .multipart: checkMultipart(data)
        case .form: checkForm(data)
        case .cookie: checkCookies(data)
        case .micropub: checkMicropub(data)
        case .exif: checkExif(data)
        case .webmention: checkWebmentionSource(data)
        case .discovery: checkWebmentionDiscovery(data)
        case .inbox: checkInbox(data)
        }
    }

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
