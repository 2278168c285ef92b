import Foundation
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogSQLite
@testable import BlogPages

/// IndieAuth 2022, section 4.1: every page names the metadata (and the
/// older endpoint links) while the web client is on, none without; the
/// same bytes on every instance, so the start-up check rewrites nothing.
@Suite("IndieAuth discovery")
struct IndieAuthDiscoveryTests {
    @Test(arguments: [false, true])
    func everyPageNamesTheServer(_ named: Bool) throws {
        let messages = (1...3).map { "newpost:alice:Post \($0):Text" }
        try withPostedBlog(pagesNameMicropub: named, messages: messages) { service, post in
            for page in ["index.html", "alice.html", "alice.1.html", "alice/\(post.id).html"] {
                let text = try #require(service.pages.read(file: page), "\(page)")
                let head = try #require(text.split(separator: "</head>").first)
                let links = ["<link rel=\"indieauth-metadata\" href=\"/.well-known/oauth-authorization-server\">",
                             "<link rel=\"authorization_endpoint\" href=\"/app/auth\">",
                             "<link rel=\"token_endpoint\" href=\"/indieauth/token\">"]
                for link in links {
                    #expect(head.contains(link) == named, "\(page): \(link)")
                }
            }
            #expect(try service.repairPages().rebuilt.isEmpty)
        }
    }
}
