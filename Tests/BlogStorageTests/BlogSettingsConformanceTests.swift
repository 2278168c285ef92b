import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
import BlogPages

/// Blog settings and the sitemap's read of the posts, the same on every
/// backend: settings stored whole and replaced whole, unset fields NULL,
/// kept apart per user, gone with their user; the sitemap's posts by id,
/// in batches, without the trash.
@Suite("BlogStorage conformance: blog settings and sitemap")
struct BlogSettingsConformanceTests {
    static let full = try! BlogSettings(title: "Notes from the hill ☕", description: "Walks, bread & <code>",
                                        authorName: "Alice Ångström", authorPhoto: "photos/0123456789abcdef0123456789abcdef.jpg")

    @Test(arguments: Backend.available) func storedReplacedAndKeptApart(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            #expect(try store.blogSettings(ofUserID: alice.id) == .unset, "nothing set yet")
            try store.setBlogSettings(Self.full, ofUserID: alice.id, at: t0)
            #expect(try store.blogSettings(ofUserID: alice.id) == Self.full)
            #expect(try store.blogSettings(ofUserID: bob.id) == .unset, "another blog's stay unset")
            let titleOnly = try BlogSettings(title: "Only a title")
            try store.setBlogSettings(titleOnly, ofUserID: alice.id, at: t0.addingTimeInterval(60))
            #expect(try store.blogSettings(ofUserID: alice.id) == titleOnly, "replaced whole: the others cleared")
            try store.setBlogSettings(.unset, ofUserID: alice.id, at: t0.addingTimeInterval(120))
            #expect(try store.blogSettings(ofUserID: alice.id) == .unset)
        }
    }

    @Test(arguments: Backend.available) func theLongestValuesFit(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            // Code points, as the rules and the CHECKs count: an accent that
            // combines counts as one more.
            let longest = try BlogSettings(
                title: String(repeating: "é", count: BlogSettings.maxTitleCharacters),
                description: String(repeating: "e\u{301}", count: BlogSettings.maxDescriptionCharacters / 2),
                authorName: String(repeating: "😀", count: BlogSettings.maxAuthorNameCharacters),
                authorPhoto: String(repeating: "a", count: BlogSettings.maxPhotoPathBytes - 4) + ".jpg")
            try store.setBlogSettings(longest, ofUserID: alice.id, at: t0)
            #expect(try store.blogSettings(ofUserID: alice.id) == longest)
        }
    }

    @Test(arguments: Backend.available) func unknownUserStoresNothing(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(storageError { try store.setBlogSettings(Self.full, ofUserID: 42, at: t0) } == .unknownUser)
            #expect(try store.blogSettings(ofUserID: 42) == .unset)
        }
    }

    @Test(arguments: Backend.available) func settingsGoWithTheirUser(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            try store.setBlogSettings(Self.full, ofUserID: alice.id, at: t0)
            try store.deleteUser(id: alice.id)
            let again = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            #expect(try store.blogSettings(ofUserID: again.id) == .unset, "a new alice starts with none")
            #expect(try store.blogSettings(ofUserID: alice.id) == .unset)
        }
    }

    /// The page writer's one read equals the two it stands for: with and
    /// without settings, with no post, one, and several page groups.
    @Test(arguments: Backend.available) func newestPostsAndSettingsInOneRead(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            func expectBoth(_ comment: Comment) throws {
                let both = try store.newestPostsAndSettings(ofUserID: alice.id)
                #expect(both.posts == (try store.newestPosts(ofUserID: alice.id)), comment)
                #expect(both.settings == (try store.blogSettings(ofUserID: alice.id)), comment)
            }
            try expectBoth("no post, no settings")
            try store.setBlogSettings(Self.full, ofUserID: alice.id, at: t0)
            try expectBoth("no post")
            let layout = PageLayout(pageSize: 2)
            for index in 0..<5 {
                _ = try store.addPost(userID: alice.id, title: "T\(index)", content: "x",
                                      at: t0.addingTimeInterval(Double(index)), layout: layout)
                try expectBoth("\(index + 1) posts")
            }
            let last = try #require(try store.newestPosts(ofUserID: alice.id).first)
            _ = try store.editPost(id: last.id, ofUserID: alice.id, title: "E", content: "y", weight: 3,
                                   at: t0.addingTimeInterval(99.5))
            try expectBoth("after an edit")
            #expect(try store.newestPostsAndSettings(ofUserID: alice.id).posts.count == 3, "groups of 2: the two newest")
            try store.setBlogSettings(.unset, ofUserID: alice.id, at: t0)
            try expectBoth("settings cleared")
            let nobody = try store.newestPostsAndSettings(ofUserID: 4242)
            #expect(nobody.posts.isEmpty && nobody.settings == .unset)
        }
    }

    @Test(arguments: Backend.available) func sitemapPostsComeByIDInBatches(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            var ids: [Int64] = []
            for index in 0..<5 {
                let owner = index.isMultiple(of: 2) ? alice : bob
                ids.append(try store.addPost(userID: owner.id, title: "T\(index)", content: "x",
                                             at: t0.addingTimeInterval(Double(index) * 60)).id)
            }
            let edited = t0.addingTimeInterval(3_600.25)
            _ = try store.editPost(id: ids[1], ofUserID: bob.id, title: "Edited", content: "y", weight: 7, at: edited)
            _ = try store.trashPost(id: ids[3], ofUserID: bob.id, at: t0.addingTimeInterval(4_000))

            let first = try store.sitemapPosts(after: 0, limit: 2)
            #expect(first.map(\.id) == [ids[0], ids[1]])
            #expect(first.map(\.user) == ["Alice", "bob"], "names in their registered case")
            #expect(first[0].modified == t0)
            #expect(first[1].modified == edited, "an edit's time, to the millisecond")
            let rest = try store.sitemapPosts(after: ids[1], limit: 10)
            #expect(rest.map(\.id) == [ids[2], ids[4]], "a post in the trash is on no page")
            #expect(try store.sitemapPosts(after: ids[4], limit: 10).isEmpty)
            #expect(try store.sitemapPosts(after: 0, limit: 0).isEmpty)
        }
    }
}
