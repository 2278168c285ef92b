import BlogSQLite
import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

/// Photos through the service: uploads whose files work at once, posts
/// that show them, deletions that take their files, and files that the
/// start-up check brings back from the database.
@Suite("Photo service")
struct PhotoServiceTests {
    /// A registered author, logged in on the returned session.
    private func author(_ fx: ServiceFixture, _ name: String = "alice") -> Session {
        var session = Session(peerAddress: "192.0.2.10")
        #expect(fx.send("register:\(name):pw", &session) == .registered)
        return session
    }

    /// Uploads a photo for `name` through the service; returns it.
    private func upload(_ fx: ServiceFixture, _ session: Session, as name: String = "alice", seed: UInt64 = 1,
                        expect reply: Reply = .posted) -> PostPhoto {
        let photo = testPhoto()
        let answer = fx.service.storePhoto(photo, image: fakeJPEG(3_000, seed: seed), thumbnail: fakeJPEG(400, seed: seed + 99),
                                           for: user(name), session: session)
        #expect(answer == reply)
        return photo
    }

    private func post(_ fx: ServiceFixture, _ message: String, photos: [PostPhoto], _ session: inout Session) throws -> Outcome {
        fx.service.outcome(of: try Request(message: bytes(message)), photos: photos.map(\.name), session: &session)
    }

    private func hasFiles(_ fx: ServiceFixture, _ photo: PostPhoto) -> Bool {
        fx.pages.exists(file: photo.file) && fx.pages.exists(file: photo.thumbnailFile)
    }

    private func expectPagesMatchTheDatabase(_ fx: ServiceFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        fx.service.writeIndex()
        for user in try fx.store.allUsers() {
            for page in try fx.service.userPages.render(user) {
                #expect(fx.pages.contents(of: page.file) == page.bytes, "\(page.file)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func anUploadIsStoredAndItsFilesWrittenAtOnce() throws {
        try withService { (fx: ServiceFixture) throws in
            let session = author(fx)
            let photo = upload(fx, session, seed: 5)
            #expect(fx.pages.contents(of: photo.file) == fakeJPEG(3_000, seed: 5))
            #expect(fx.pages.contents(of: photo.thumbnailFile) == fakeJPEG(400, seed: 104))
            #expect(try fx.store.photoData(name: photo.name)?.image == fakeJPEG(3_000, seed: 5))
        }
    }

    @Test func uploadsAreRefusedAsPostsAre() throws {
        try withService { (fx: ServiceFixture) throws in
            let session = author(fx)
            _ = upload(fx, session, expect: .posted)
            _ = upload(fx, Session(peerAddress: "192.0.2.99"), as: "alice", expect: .postRefused)
            _ = upload(fx, session, as: "nobody", expect: .postRefused)
            let broken = fx.service.storePhoto(testPhoto(), image: [1, 2, 3, 4], thumbnail: fakeJPEG(), for: user("alice"),
                                               session: session)
            #expect(broken == .postFailed, "not a processed photo")
            let badName = PostPhoto(name: "../index", width: 1, height: 1, thumbnailWidth: 1, thumbnailHeight: 1)
            #expect(fx.service.storePhoto(badName, image: fakeJPEG(), thumbnail: fakeJPEG(), for: user("alice"),
                                          session: session) == .postFailed)
            try fx.service.moderateSuspend("alice", true)
            _ = upload(fx, session, expect: .postRefused)
            let alice = try #require(try fx.store.user(named: "alice"))
            #expect(try fx.store.photos(ofUserID: alice.id).count == 1)
            #expect(fx.pages.files(in: PostPhoto.folder).count == 2, "one photo's two files")
        }
    }

    @Test func photosIsAReservedName() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:photos:pw") == .nameTaken)
            #expect(fx.send("register:Photos:pw") == .nameTaken)
        }
    }

    @Test func aPostShowsItsPhotosOnEveryPageAndInTheFeed() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let first = upload(fx, session, seed: 1), second = upload(fx, session, seed: 2)
            let outcome = try post(fx, "newpost:alice:Holiday:Sea", photos: [second, first], &session)
            #expect(outcome.reply == .posted)
            let id = try #require(outcome.postID)
            let figure = "<figure class=\"photos\"><a href=\"\(second.file)\"><img class=\"u-photo\" src=\"\(second.thumbnailFile)\""
            #expect(try #require(fx.page("alice")).contains(figure))
            let own = try #require(fx.pages.read(file: PageRenderer.postFile(user: "alice", id: id)))
            #expect(own.contains(figure) && own.contains("<base href=\"../\">"))
            fx.service.writeIndex()
            let feed = try #require(fx.pages.read(file: PageRenderer.feedFile(user: "alice")))
            #expect(feed.contains("&lt;img class=&quot;u-photo&quot; src=&quot;http://localhost/\(second.thumbnailFile)&quot;"))
            let site = try #require(fx.pages.read(file: PageRenderer.siteFeedFile))
            #expect(site.contains("http://localhost/\(first.file)"))
            // With a place too, and an edit keeps them.
            let third = upload(fx, session, seed: 3)
            #expect(try post(fx, "geopost:alice:50.08:14.42:Here:x", photos: [third], &session).reply == .posted)
            #expect(fx.send("editpost:alice:\(id):Holiday!:Sea and sun", &session) == .edited)
            #expect(try fx.store.posts(ids: [id]).first?.photos == [second, first])
            try expectPagesMatchTheDatabase(fx)
            #expect(try fx.service.repairPages().rebuilt.isEmpty)
        }
    }

    @Test func aPostWithPhotosThatMayNotGoIsRefusedAndStoresNothing() throws {
        try withService { (fx: ServiceFixture) throws in
            var alice = author(fx, "alice")
            let bob = author(fx, "bob")
            let mine = upload(fx, alice, as: "alice", seed: 1)
            let bobs = upload(fx, bob, as: "bob", seed: 2)
            #expect(try post(fx, "newpost:alice:T:x", photos: [mine, bobs], &alice).reply == .postRefused, "bob's")
            #expect(try post(fx, "newpost:alice:T:x", photos: [testPhoto()], &alice).reply == .postRefused, "unknown")
            let five = (0..<5).map { upload(fx, alice, as: "alice", seed: 10 + UInt64($0)) }
            #expect(try post(fx, "newpost:alice:T:x", photos: five, &alice).reply == .postRefused, "one too many")
            #expect(try fx.store.posts(ofUserID: try #require(try fx.store.user(named: "alice")).id).isEmpty)
            #expect(try post(fx, "newpost:alice:T:x", photos: [mine], &alice).reply == .posted)
            #expect(try post(fx, "newpost:alice:U:x", photos: [mine], &alice).reply == .postRefused, "on a post already")
            // Other requests take no photos.
            #expect(try post(fx, "posts:alice", photos: [bobs], &alice).reply == .postsListed)
        }
    }

    @Test func deletingAPostRemovesItsPhotosAndTheirFiles() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let kept = upload(fx, session, seed: 1), gone = upload(fx, session, seed: 2), moderated = upload(fx, session, seed: 3)
            let id = try #require(try post(fx, "newpost:alice:A:x", photos: [gone], &session).postID)
            let other = try #require(try post(fx, "newpost:alice:B:x", photos: [moderated], &session).postID)
            #expect(fx.send("delpost:alice:\(id)", &session) == .deleted)
            #expect(!hasFiles(fx, gone) && !fx.pages.exists(file: gone.file))
            #expect(try fx.store.photoData(name: gone.name) == nil)
            #expect(try fx.service.moderateDeletePost(id: other) == "alice")
            #expect(!fx.pages.exists(file: moderated.file) && !fx.pages.exists(file: moderated.thumbnailFile))
            #expect(hasFiles(fx, kept), "an upload on no post stays")
            try expectPagesMatchTheDatabase(fx)
        }
    }

    @Test func deletingAUserRemovesTheirPhotoFiles() throws {
        try withService { (fx: ServiceFixture) throws in
            var alice = author(fx, "alice")
            let bob = author(fx, "bob")
            let free = upload(fx, alice, as: "alice", seed: 1), attached = upload(fx, alice, as: "alice", seed: 2)
            let bobs = upload(fx, bob, as: "bob", seed: 3)
            #expect(try post(fx, "newpost:alice:A:x", photos: [attached], &alice).reply == .posted)
            try fx.service.moderateDeleteUser("alice")
            #expect(!fx.pages.exists(file: free.file) && !fx.pages.exists(file: attached.thumbnailFile))
            #expect(fx.pages.files(in: PostPhoto.folder).sorted() == ["\(bobs.name).jpg", "\(bobs.name).t.jpg"])
        }
    }

    /// A post answered failed is taken back, and its photos are free for
    /// the retry (files the start-up check brings back).
    @Test func aFailedPostLeavesItsPhotosForTheRetry() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let photo = upload(fx, session)
            // The registration's index and feed are written in the
            // background: done first, so none races the folder's removal.
            fx.service.writeIndex()
            try FileManager.default.removeItem(at: fx.publicFolder)
            try Data("not a folder".utf8).write(to: fx.publicFolder)
            #expect(try post(fx, "newpost:alice:T:x", photos: [photo], &session).reply == .postFailed)
            try FileManager.default.removeItem(at: fx.publicFolder)
            try FileManager.default.createDirectory(at: fx.publicFolder, withIntermediateDirectories: true)
            #expect(try fx.service.repairPages().rebuilt == ["alice"])
            #expect(hasFiles(fx, photo))
            #expect(try post(fx, "newpost:alice:T:x", photos: [photo], &session).reply == .posted)
            try expectPagesMatchTheDatabase(fx)
        }
    }

    /// The start-up check and `blogd rebuild` write missing and cut-short
    /// photo files again, and the check removes files no photo accounts for.
    @Test func repairsRestoreMissingFilesAndRemoveStrays() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let missing = upload(fx, session, seed: 1), cut = upload(fx, session, seed: 2), fine = upload(fx, session, seed: 3)
            #expect(try post(fx, "newpost:alice:A:x", photos: [missing, cut], &session).reply == .posted)
            fx.service.writeIndex()
            #expect(try fx.service.repairPages().rebuilt.isEmpty, "all there")
            fx.pages.remove(file: missing.thumbnailFile)
            try fx.pages.write(Array(fakeJPEG(3_000, seed: 2).prefix(1_000)), file: cut.file)
            let stray = testPhoto()
            try fx.pages.write(fakeJPEG(), file: stray.file)
            try fx.pages.write(fakeJPEG(), file: stray.thumbnailFile)
            try fx.pages.write([1, 2, 3], file: PostPhoto.folder + "/notes.txt")
            let report = try fx.service.repairPages()
            #expect(report.rebuilt == ["alice"])
            #expect(report.strayPhotos == 1)
            #expect(fx.pages.contents(of: missing.thumbnailFile) == fakeJPEG(400, seed: 100))
            #expect(fx.pages.contents(of: cut.file) == fakeJPEG(3_000, seed: 2))
            #expect(hasFiles(fx, fine))
            #expect(!fx.pages.exists(file: stray.file) && !fx.pages.exists(file: stray.thumbnailFile))
            #expect(fx.pages.exists(file: PostPhoto.folder + "/notes.txt"), "not a photo's: not touched")
            #expect(try fx.service.repairPages() == .init(checked: 1, rebuilt: []))
            // `blogd rebuild` too.
            fx.pages.remove(file: fine.file)
            #expect(try fx.service.rebuildPages(of: ["alice"]) == ["alice"])
            #expect(fx.pages.contents(of: fine.file) == fakeJPEG(3_000, seed: 3))
        }
    }

    @Test func uploadsNoPostTookArePrunedAfterADay() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let old = upload(fx, session, seed: 1), attached = upload(fx, session, seed: 2)
            #expect(try post(fx, "newpost:alice:A:x", photos: [attached], &session).reply == .posted)
            fx.clock.advance(by: 86_400 - 60)
            let recent = upload(fx, session, seed: 3)
            try fx.service.pruneLoginState()
            #expect(hasFiles(fx, old), "not a day yet")
            fx.clock.advance(by: 120)
            try fx.service.pruneLoginState()
            #expect(!fx.pages.exists(file: old.file) && !fx.pages.exists(file: old.thumbnailFile))
            #expect(try fx.store.photoData(name: old.name) == nil)
            #expect(hasFiles(fx, attached) && hasFiles(fx, recent))
        }
    }
}
