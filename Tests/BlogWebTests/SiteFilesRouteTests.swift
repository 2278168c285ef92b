import HTTPTypes
import Testing
@testable import BlogWeb

/// The page server serves the site's robots.txt and sitemap files by name,
/// and still no other text or XML file a folder may hold.
@Suite("Site files route")
struct SiteFilesRouteTests {
    @Test(arguments: [("/robots.txt", "text/plain; charset=utf-8"), ("/sitemap.xml", "application/xml; charset=utf-8"),
                      ("/sitemap-1.xml", "application/xml; charset=utf-8"), ("/sitemap-12.xml", "application/xml; charset=utf-8")])
    func servedByName(_ path: String, _ type: String) {
        #expect(PublicFolderHandler.route(method: .get, path: path)
                == .file(name: String(path.dropFirst()), contentType: type, withBody: true))
    }

    @Test(arguments: ["/notes.txt", "/alice/robots.txt", "/x.xml", "/sitemap-.xml", "/sitemap-x.xml", "/sitemapx.xml",
                      "/sitemap-1a.xml", "/alice/sitemap.xml", "/ROBOTS.TXT", "/sitemap-١.xml"])
    func othersAreNot(_ path: String) {
        #expect(PublicFolderHandler.route(method: .get, path: path) == .notFound)
    }
}
