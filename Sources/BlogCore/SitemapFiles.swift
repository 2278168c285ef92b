import BlogModel
import BlogPages

/// Writes `sitemap.xml` (with its parts, for a large site) and `robots.txt`
/// from the database, as static files beside the pages, so that any static
/// server serves them.
///
/// Not on any request's path: the service marks it changed with each
/// change of the index of blogs (a post, an edit, a deletion, a new blog)
/// and a background writer rewrites it at once and then at most once per
/// `interval` (`CoalescedWriter`), however fast posts come. A rewrite
/// reads the site's posts in batches of `batch` (memory: one sitemap file
/// at a time) and writes only the files that changed.
struct SitemapFiles: Sendable {
    /// Seconds between two rewrites at most: a rewrite reads every post,
    /// about 0.1 s for 100,000, so once a minute costs little however
    /// busy the site is, and a crawler never needs it fresher.
    static let interval: Double = 60
    static let batch = 5_000

    let pages: PublicFolder
    let storage: any BlogStorage
    let siteURL: String
    var maxURLs = SitemapFile.maxURLs
    var maxBytes = SitemapFile.maxBytes

    /// Rewrites the files that differ from what the database says.
    func write() throws {
        var builder = SitemapFile.Builder(siteURL: siteURL, maxURLs: maxURLs, maxBytes: maxBytes)
        for user in try storage.userSummaries() {
            if let full = builder.add(PageRenderer.mainFile(user: user.name), modified: user.lastPostAt ?? user.registeredAt) {
                try pages.writeIfChanged(full, file: SitemapFile.partFile(builder.fullParts))
            }
        }
        var after: Int64 = 0
        while true {
            let posts = try storage.sitemapPosts(after: after, limit: Self.batch)
            for post in posts {
                if let full = builder.add(PageRenderer.postFile(user: post.user, id: post.id), modified: post.modified) {
                    try pages.writeIfChanged(full, file: SitemapFile.partFile(builder.fullParts))
                }
            }
            guard let last = posts.last, posts.count == Self.batch else { break }
            after = last.id
        }
        let parts: Int
        if builder.fullParts == 0 {
            parts = 0
            try pages.writeIfChanged(builder.finish(), file: SitemapFile.fileName)
        } else {
            parts = builder.fullParts + 1
            try pages.writeIfChanged(builder.finish(), file: SitemapFile.partFile(parts))
            try pages.writeIfChanged(builder.index(parts: parts), file: SitemapFile.fileName)
        }
        // Parts of a larger sitemap than today's.
        var stale = parts + 1
        while pages.exists(file: SitemapFile.partFile(stale)) {
            pages.remove(file: SitemapFile.partFile(stale))
            stale += 1
        }
        try pages.writeIfChanged(SitemapFile.robots(siteURL: siteURL), file: SitemapFile.robotsFile)
    }
}
