import BlogCore
import Foundation
import Testing

/// `geopost` over real sockets: answered as `newpost`, its place on the
/// post's line of the page, its page, and its feed entry; a bad
/// coordinate is `err:ARGS` and stores nothing.
@Suite("geopost")
struct GeoPostTests {
    @Test func aPlacedPostShowsItsPlaceOnThePagesAndInTheFeed() throws {
        let f = try ServerFixture()
        defer { _ = f.tearDown() }
        try f.registerAndLogin("alice")
        #expect(try f.ask("geopost:alice:50.0874654:14.4212535:On the bridge:Charles Bridge, 6 a.m.[E];") == "post:OK[E];")
        #expect(try f.ask("newpost:alice:Indoors:no place[E];") == "post:OK[E];")
        let link = "https://www.openstreetmap.org/?mlat=50.0874654&amp;mlon=14.4212535#map=16/50.0874654/14.4212535"
        let page = try #require(f.page(of: "alice"))
        #expect(page.contains("<p class=\"place p-location h-geo\"><a href=\"\(link)\">📍 <span class=\"p-latitude\">50.0874654</span>, "
                             + "<span class=\"p-longitude\">14.4212535</span></a> · <a href=\"alice.map.html\">all places</a></p>"), "\(page)")
        #expect(page.components(separatedBy: "class=\"place p-location h-geo\"").count == 2, "only the placed post has a place")
        let alice = try #require(try f.store.user(named: "alice"))
        let post = try #require(try f.store.posts(ofUserID: alice.id).last)
        #expect(post.place?.latitude == "50.0874654" && post.place?.longitude == "14.4212535")
        let own = try String(contentsOf: f.publicFolder.appendingPathComponent("alice/\(post.id).html"), encoding: .utf8)
        #expect(own.contains(link))
        f.service.writeIndex()
        let feed = try String(contentsOf: f.publicFolder.appendingPathComponent("alice.atom"), encoding: .utf8)
        #expect(feed.contains("xmlns:georss=\"http://www.georss.org/georss\""))
        #expect(feed.contains("<georss:point>50.0874654 14.4212535</georss:point>"))
        #expect(feed.components(separatedBy: "<georss:point>").count == 2)
        // The map page lists the placed posts only, linked to their pages.
        let map = try String(contentsOf: f.publicFolder.appendingPathComponent("alice.map.html"), encoding: .utf8)
        #expect(map.contains("<li data-lat=\"50.0874654\" data-lon=\"14.4212535\"><a href=\"alice/\(post.id).html\">On the bridge</a>"))
        #expect(map.components(separatedBy: "<li ").count == 2)
        #expect(map.contains("<script src=\"leaflet/leaflet.js\" defer></script>") && map.contains("<script src=\"map.js\" defer></script>"))
        // An edit keeps the place: the wire form of editpost has none.
        #expect(try f.ask("editpost:alice:\(post.id):On the bridge:fixed[E];") == "edit:OK[E];")
        #expect(try #require(f.page(of: "alice")).contains(link))
        // With its last placed post deleted, a blog has no map page.
        #expect(try f.ask("delpost:alice:\(post.id)[E];") == "del:OK[E];")
        f.service.writeIndex()
        #expect(!FileManager.default.fileExists(atPath: f.publicFolder.appendingPathComponent("alice.map.html").path))
    }

    @Test func aBlogWithoutPlacesHasNoMapPage() throws {
        let f = try ServerFixture()
        defer { _ = f.tearDown() }
        try f.registerAndLogin("erin")
        #expect(try f.ask("newpost:erin:Indoors:no place[E];") == "post:OK[E];")
        f.service.writeIndex()
        #expect(!FileManager.default.fileExists(atPath: f.publicFolder.appendingPathComponent("erin.map.html").path))
        #expect(try #require(f.page(of: "erin")).contains("class=\"place p-location h-geo\"") == false)
    }

    @Test func refusalsStoreNothing() throws {
        let f = try ServerFixture()
        defer { _ = f.tearDown() }
        try f.registerAndLogin("bob")
        for message in ["geopost:bob:91:0:t:c[E];", "geopost:bob:0:180.5:t:c[E];", "geopost:bob:1e1:0:t:c[E];",
                        "geopost:bob:0:0:t[E];", "geopost:bob::0:t:c[E];", "geopost:bob:nan:nan:t:c[E];"] {
            #expect(try f.ask(message) == "err:ARGS[E];", "\(message)")
        }
        #expect(try f.postCount(of: "bob") == 0)
        // The same rule as newpost: a login from this address first.
        try f.blog.createUserDirectly("carol")
        #expect(try f.ask("geopost:carol:0:0:t:c[E];") == "post:NA[E];")
        #expect(try f.postCount(of: "carol") == 0)
        #expect(try f.ask("geopost:nobody:0:0:t:c[E];") == "post:NA[E];")
    }
}
