import Foundation

/// `sitemap.xml` (the sitemaps.org protocol, 0.9): every blog's main page
/// and every post's page, with when each last changed, and `robots.txt`,
/// which points crawlers at it.
///
/// A sitemap file holds at most 50,000 URLs and 50 MB: a site with more
/// is listed in parts (`sitemap-1.xml`, …) and `sitemap.xml` is their
/// index. The builder keeps one part in memory at a time.
///
///     var builder = SitemapFile.Builder(siteURL: "https://blog.example.org/")
///     if let full = builder.add("alice.html", modified: date) { write(full, part: 1) }
///     let last = builder.finish()
public enum SitemapFile {
    public static let fileName = "sitemap.xml"
    public static let robotsFile = "robots.txt"
    /// The protocol's bounds of one file.
    public static let maxURLs = 50_000
    public static let maxBytes = 50 * 1024 * 1024

    /// `sitemap-3.xml`: part 3 of a sitemap too large for one file.
    public static func partFile(_ number: Int) -> String {
        "sitemap-\(number).xml"
    }

    /// One sitemap file after another, each within the bounds.
    public struct Builder {
        public let siteURL: String
        private let maxURLs: Int
        private let maxBytes: Int
        private var part: [UInt8] = []
        private var urls = 0
        /// Parts handed out so far (full ones, returned by `add`).
        public private(set) var fullParts = 0

        public init(siteURL: String, maxURLs: Int = SitemapFile.maxURLs, maxBytes: Int = SitemapFile.maxBytes) {
            self.siteURL = siteURL.hasSuffix("/") ? siteURL : siteURL + "/"
            self.maxURLs = max(1, maxURLs)
            self.maxBytes = maxBytes
            part = urlsetStart
        }

        /// Adds the page `file` (relative to the public folder), changed at
        /// `modified`; returns the part it filled, whole, when the page
        /// did not fit in it (the page starts the next).
        public mutating func add(_ file: String, modified: Date) -> [UInt8]? {
            var entry = Array("<url><loc>".utf8)
            AtomFeed.appendEscaped((siteURL + file).utf8, to: &entry)
            entry += Array("</loc><lastmod>".utf8)
            entry += Array(PostDate.machine(modified).utf8)
            entry += Array("</lastmod></url>\n".utf8)
            var full: [UInt8]?
            if urls > 0 && (urls >= maxURLs || part.count + entry.count + urlsetEnd.count > maxBytes) {
                full = part + urlsetEnd
                fullParts += 1
                part = urlsetStart
                urls = 0
            }
            part += entry
            urls += 1
            return full
        }

        /// The last part, closed.
        public func finish() -> [UInt8] {
            part + urlsetEnd
        }

        /// The index of `parts` parts (`partFile(1)` …).
        public func index(parts: Int) -> [UInt8] {
            var out = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"\(SitemapFile.namespace)\">\n".utf8)
            for number in 1...max(1, parts) {
                out += Array("<sitemap><loc>".utf8)
                AtomFeed.appendEscaped((siteURL + SitemapFile.partFile(number)).utf8, to: &out)
                out += Array("</loc></sitemap>\n".utf8)
            }
            out += Array("</sitemapindex>\n".utf8)
            return out
        }

        private let urlsetStart = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"\(SitemapFile.namespace)\">\n".utf8)
        private let urlsetEnd = Array("</urlset>\n".utf8)
    }

    static let namespace = "http://www.sitemaps.org/schemas/sitemap/0.9"

    /// `robots.txt`: every page may be crawled but the web client's; the
    /// sitemap's absolute URL. (It counts where the public folder is served
    /// at the host's root, where crawlers look for it.)
    public static func robots(siteURL: String) -> [UInt8] {
        let site = siteURL.hasSuffix("/") ? siteURL : siteURL + "/"
        return Array("""
            User-agent: *
            Disallow: /app/
            Allow: /

            Sitemap: \(site)\(fileName)

            """.utf8)
    }
}
