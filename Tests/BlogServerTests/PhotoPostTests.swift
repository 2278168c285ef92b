import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Testing

/// A post with photos from another front door (the web client, Micropub):
/// through the blog port's budgets and lanes, as any post from there.
@Suite("Posts with photos through perform")
struct PhotoPostTests {
    @Test func performAttachesPhotosAndTheOldCallFormStillPosts() throws {
        let f = try ServerFixture()
        defer { _ = f.tearDown() }
        try f.registerAndLogin("alice")
        // Logged in from this address: its lease lets the web session act.
        let session = Session(peerAddress: "127.0.0.1")
        let alice = try Username("alice")
        let photo = testPhoto()
        #expect(f.service.storePhoto(photo, image: fakeJPEG(), thumbnail: fakeJPEG(200, seed: 2), for: alice,
                                     session: session) == .posted)
        #expect(FileManager.default.fileExists(atPath: f.publicFolder.appendingPathComponent(photo.file).path))
        let outcome = try f.server.perform(.newPost(user: alice, title: Title("Sea"), content: PostText(framed: "blue")), photos: [photo.name],
                                       session: session)
        #expect(outcome.reply == .posted)
        let id = try #require(outcome.postID)
        #expect(try f.store.posts(ids: [id]).first?.photos == [photo])
        #expect(try #require(f.page(of: "alice")).contains("<img class=\"u-photo\" src=\"\(photo.thumbnailFile)\""))
        // On a post already: refused, nothing stored.
        let again = try f.server.perform(.newPost(user: alice, title: Title("Again"), content: PostText(framed: "x")), photos: [photo.name], session: session)
        #expect(again.reply == .postRefused)
        #expect(try f.server.perform(.newPost(user: alice, title: Title("Plain"), content: PostText(framed: "x")), session: session).reply == .posted)
        #expect(try f.postCount(of: "alice") == 2)
    }
}
