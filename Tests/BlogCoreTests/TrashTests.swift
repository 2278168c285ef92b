import BlogTestSupport
import BlogWire
import Dispatch
import Foundation
import GRDB
import Testing
@testable import BlogPages
@testable import BlogCore
@testable import BlogSQLite

/// The trash through the service: `delpost` takes a post off every page at
/// once and its photo files out of the public folder; a restore brings it
/// all back as it was; after `trashDays` on the service's clock it is
/// purged, its text gone from the database file.
@Suite("Trash")
struct TrashTests {
    private func author(_ fx: ServiceFixture, _ name: String = "alice") -> Session {
        var session = Session(peerAddress: "192.0.2.10")
        #expect(fx.send("register:\(name):pw", &session) == .registered)
        return session
    }

    private func expectPagesMatchTheDatabase(_ fx: ServiceFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        fx.service.writeIndex()
        for user in try fx.store.allUsers() {
            for page in try fx.service.userPages.render(user) {
                #expect(fx.pages.contents(of: page.file) == page.bytes, "\(page.file)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Every file of the public folder, hidden ones too, with its bytes.
    private func snapshot(_ fx: ServiceFixture) throws -> [String: [UInt8]] {
        fx.service.writeIndex()
        var files: [String: [UInt8]] = [:]
        for name in try allFileNames(in: fx.publicFolder) { files[name] = fx.pages.contents(of: name) }
        return files
    }

    @Test func aTrashedPostLeavesEverythingAndARestoreBringsItAllBack() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            var session = author(fx)
            for index in 0..<3 { #expect(fx.send("newpost:alice:Post \(index):text \(index)", &session) == .posted) }
            let photo = testPhoto()
            #expect(fx.service.storePhoto(photo, image: fakeJPEG(3_000, seed: 7), thumbnail: fakeJPEG(400, seed: 8),
                                          for: try Username("alice"), session: session) == .posted)
            let request = try Request(message: bytes("geopost:alice:48.8584:2.2945:Pictured secret:here it is"))
            let placed = try #require(fx.service.outcome(of: request, photos: [photo.name], session: &session).postID)
            for index in 3..<5 { #expect(fx.send("newpost:alice:Post \(index):text \(index)", &session) == .posted) }
            let before = try snapshot(fx)
            #expect(before[MapPage.file(user: "alice")] != nil)

            fx.clock.advance(by: 60)
            #expect(fx.send("delpost:alice:\(placed)", &session) == .deleted, "the reply is as it was")
            #expect(!fx.pages.exists(file: PageRenderer.postFile(user: "alice", id: placed)))
            #expect(fx.pages.exists(file: PageRenderer.goneFile(user: "alice", id: placed)), "410 at once")
            #expect(!fx.pages.exists(file: photo.file) && !fx.pages.exists(file: photo.thumbnailFile))
            #expect(!fx.pages.exists(file: MapPage.file(user: "alice")), "no placed post left")
            let trashed = try snapshot(fx)
            // (Hidden names are spare files of page writes, which the
            // pages layer empties itself.)
            for (name, bytes) in trashed where !(name.split(separator: "/").last ?? "").hasPrefix(".") {
                #expect(!String(decoding: bytes, as: UTF8.self).contains("Pictured secret"), "\(name)")
            }
            #expect(fx.send("editpost:alice:\(placed):T:x", &session) == .editRefused, "edits do not see it")
            #expect(!String(decoding: fx.service.handle(message: bytes("posts:alice"), session: &session).bytes, as: UTF8.self)
                .contains("Pictured"), "nor does the listing")
            try expectPagesMatchTheDatabase(fx)
            #expect(try fx.service.repairPages().rebuilt.isEmpty, "the start-up check treats it as deleted")
            #expect(!fx.pages.exists(file: photo.file), "and does not bring its photo back")

            let owner = try #require(try fx.store.user(named: "alice"))
            #expect(try fx.store.trashedPosts(ofUserID: owner.id, limit: 9).map(\.id) == [placed])
            var stranger = Session(peerAddress: "192.0.2.99")
            #expect(fx.service.restorePost(try Username("alice"), id: placed, session: stranger) == .refused)
            _ = author(fx, "bob")
            stranger.authenticatedUsers.insert("bob")
            #expect(fx.service.restorePost(try Username("bob"), id: placed, session: stranger) == .notInTrash, "not bob's")
            #expect(fx.service.restorePost(try Username("alice"), id: placed + 100, session: session) == .notInTrash)

            #expect(fx.service.restorePost(try Username("alice"), id: placed, session: session) == .restored)
            let restored = try snapshot(fx)
            #expect(Set(restored.keys) == Set(before.keys).union(["bob.html", "bob.atom"]))
            for (name, bytes) in before where name != IndexPage.fileName && name != PageRenderer.siteFeedFile
                && name != SitemapFile.fileName {
                #expect(restored[name] == bytes, "\(name) as before the deletion")
            }
            #expect(fx.pages.contents(of: photo.file) == fakeJPEG(3_000, seed: 7))
            try expectPagesMatchTheDatabase(fx)
            #expect(try fx.service.repairPages().rebuilt.isEmpty)
            #expect(fx.service.restorePost(try Username("alice"), id: placed, session: session) == .notInTrash, "once")
        }
    }

    /// A trash whose page write comes after a restore of the same post
    /// (two tabs: the trash commits, the restore commits and writes, then
    /// the trash writes) leaves the pages and photo files of the restored
    /// post, as the database has it; and the other way round.
    @Test func aTrashAndARestoreRacingLeaveWhatTheDatabaseSays() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let photo = testPhoto()
            #expect(fx.service.storePhoto(photo, image: fakeJPEG(3_000, seed: 3), thumbnail: fakeJPEG(400, seed: 4),
                                          for: try Username("alice"), session: session) == .posted)
            let request = try Request(message: bytes("newpost:alice:Raced:text"))
            let id = try #require(fx.service.outcome(of: request, photos: [photo.name], session: &session).postID)
            let owner = try #require(try fx.store.user(named: "alice"))
            let trashed = try #require(try fx.store.trashPost(id: id, ofUserID: owner.id, at: fx.clock.now))
            #expect(fx.service.restorePost(try Username("alice"), id: id, session: session) == .restored)
            // The trash's own page write, late.
            try fx.service.showTrashState(of: owner, post: trashed.stub, photos: trashed.photos, expected: nil)
            #expect(fx.pages.exists(file: PageRenderer.postFile(user: "alice", id: id)))
            #expect(!fx.pages.exists(file: PageRenderer.goneFile(user: "alice", id: id)))
            #expect(fx.pages.exists(file: photo.file) && fx.pages.exists(file: photo.thumbnailFile))
            try expectPagesMatchTheDatabase(fx)

            let restored = try #require(try fx.store.posts(ids: [id]).first)
            #expect(fx.send("delpost:alice:\(id)", &session) == .deleted)
            // A restore's own page write, late, after the post went back to the trash.
            try fx.service.showTrashState(of: owner, post: restored.stub, photos: restored.photos, expected: restored)
            #expect(!fx.pages.exists(file: PageRenderer.postFile(user: "alice", id: id)))
            #expect(!fx.pages.exists(file: photo.file))
            try expectPagesMatchTheDatabase(fx)
        }
    }

    /// Purging runs on the service's clock: a trashed post stays
    /// restorable for `trashDays`, then its text and photos leave the
    /// database, and the file keeps none of the text.
    @Test func purgedAfterTheTrashDaysOnTheServiceClock() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            let marker = "Zq9purgeMarker"
            #expect(fx.send("newpost:alice:\(marker) title:\(marker) text", &session) == .posted)
            #expect(fx.send("newpost:alice:kept:kept", &session) == .posted)
            let owner = try #require(try fx.store.user(named: "alice"))
            let ids = try fx.store.postIDs(ofUserID: owner.id, pages: 1...9)
            #expect(fx.send("delpost:alice:\(ids[1])", &session) == .deleted)
            #expect(fx.send("delpost:alice:\(ids[0])", &session) == .deleted)
            fx.clock.advance(by: 60)
            #expect(fx.service.restorePost(try Username("alice"), id: ids[0], session: session) == .restored)

            fx.clock.advance(by: Double(BlogService.Settings.defaultTrashDays) * 86_400 - 120)
            try fx.service.pruneLoginState()
            #expect(try fx.store.trashedPosts(ofUserID: owner.id, limit: 9).map(\.id) == [ids[1]], "not yet")
            fx.clock.advance(by: 61)
            try fx.service.pruneLoginState()
            #expect(try fx.store.trashedPosts(ofUserID: owner.id, limit: 9).isEmpty, "purged")
            #expect(fx.service.restorePost(try Username("alice"), id: ids[1], session: session) == .notInTrash)
            #expect(fx.pages.exists(file: PageRenderer.goneFile(user: "alice", id: ids[1])), "still 410")
            try expectPagesMatchTheDatabase(fx)

            try fx.store.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            for file in ["data/blog.sqlite", "data/blog.sqlite-wal"] {
                let data = (try? Data(contentsOf: fx.folder.appendingPathComponent(file))) ?? Data()
                #expect(data.range(of: Data(marker.utf8)) == nil, "\(file) keeps none of the purged text")
            }
        }
    }

    /// The admin's `delete-post` skips the trash, and purges a post that
    /// is in it.
    @Test func moderationPurgesAtOnce() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = author(fx)
            for index in 0..<2 { #expect(fx.send("newpost:alice:Post \(index):x", &session) == .posted) }
            let owner = try #require(try fx.store.user(named: "alice"))
            let ids = try fx.store.postIDs(ofUserID: owner.id, pages: 1...9)
            #expect(try fx.service.moderateDeletePost(id: ids[0]) == "alice")
            #expect(try fx.store.trashedPosts(ofUserID: owner.id, limit: 9).isEmpty, "not to the trash")
            #expect(fx.send("delpost:alice:\(ids[1])", &session) == .deleted)
            #expect(try fx.service.moderateDeletePost(id: ids[1]) == "alice", "purged from the trash")
            #expect(try fx.store.trashedPosts(ofUserID: owner.id, limit: 9).isEmpty)
            #expect(throws: BlogService.ModerationError.noSuchPost(ids[1])) { try fx.service.moderateDeletePost(id: ids[1]) }
            try expectPagesMatchTheDatabase(fx)
        }
    }

    /// Posts, edits, trashings, restores and purges in a random mix from
    /// several clients at once: every page equals a rebuild.
    @Test(arguments: [UInt64(1), 2, 3])
    func aMixWithTheTrashEqualsARebuild(seed: UInt64) throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            let names = ["ann", "bob"]
            for name in names { _ = author(fx, name) }
            DispatchQueue.concurrentPerform(iterations: names.count * 2) { worker in
                let name = names[worker % names.count]
                var random = SeededGenerator(seed: seed &* 31 &+ UInt64(worker))
                var session = Session(peerAddress: "192.0.2.10")
                session.authenticatedUsers.insert(name)
                let owner = try! fx.store.user(named: name)!
                for step in 0..<25 {
                    let ids = (try? fx.store.postIDs(ofUserID: owner.id, pages: 1...1_000_000)) ?? []
                    let trashed = (try? fx.store.trashedPosts(ofUserID: owner.id, limit: 100).map(\.id)) ?? []
                    let target = ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))]
                    switch (random.next() % 10, target) {
                    case (0...2, _), (_, nil):
                        _ = fx.send("newpost:\(name):w\(worker) s\(step):\(String(repeating: "x", count: Int(random.next() % 80)))", &session)
                    case (3, let id?):
                        _ = fx.send("editpost:\(name):\(id):edit \(worker) \(step):changed", &session)
                    case (4...6, let id?):
                        _ = fx.send("delpost:\(name):\(id)", &session)
                    case (7...8, _) where !trashed.isEmpty:
                        _ = fx.service.restorePost(try! Username(name), id: trashed[Int(random.next() % UInt64(trashed.count))],
                                                   session: session)
                    default:
                        // Ten days on: what was trashed a month ago goes.
                        fx.clock.advance(by: 10 * 86_400)
                        _ = try? fx.service.purgeTrash()
                    }
                }
            }
            try expectPagesMatchTheDatabase(fx)
            #expect(try fx.service.repairPages().rebuilt.isEmpty)
        }
    }
}
