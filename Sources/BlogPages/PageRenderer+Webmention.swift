extension PageRenderer {
    /// The Webmention endpoint, relative to the public folder's root, as
    /// `micropubPath` is: the page server serves it beside the pages.
    public static let webmentionPath = "webmention"

    /// What a page's head says of the site's Webmention endpoint (W3C
    /// Webmention 3.1.2: `<link rel="webmention" href="…">`), so that a
    /// sender finds where to send; nothing without one.
    public static func webmentionLink(_ endpoint: String?) -> [UInt8] {
        guard let endpoint else { return [] }
        var out = Array("<link rel=\"webmention\" href=\"".utf8)
        HTMLEscape.append(endpoint, to: &out)
        out += tagEnd
        return out
    }
}
