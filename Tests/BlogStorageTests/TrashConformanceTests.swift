import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel

/// The trash, the same on every backend: a trashed post leaves the user's
/// posts (a tombstone, the counts) but keeps its row and photos until it
/// is restored whole or purged.
@Suite("BlogStorage conformance: the trash")
struct TrashConformanceTests {
    private func upload(_ store: any BlogStorage, _ userID: Int64, seed: UInt64) throws -> PostPhoto {
        let photo = testPhoto()
        try store.storePhoto(photo, userID: userID, image: fakeJPEG(2_000, seed: seed),
                             thumbnail: fakeJPEG(300, seed: seed + 1_000), at: t0)
        return photo
    }

    @Test(arguments: Backend.available) func trashAndRestoreKeepTheWholePost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let photo = try upload(store, alice.id, seed: 1)
            let image = try #require(try store.photoData(name: photo.name))
            let first = try store.addPost(userID: alice.id, title: "1", content: "one", at: t0)
            let placed = try store.insertPost(userID: alice.id, title: "2", content: "two", weight: 9,
                                              place: try Place(latitude: "48.8584", longitude: "2.2945"),
                                              photos: [photo.name], at: t0.addingTimeInterval(1),
                                              layout: PageLayout(pageSize: 50), token: UUID()).record
            let edited = try #require(try store.editPost(id: placed.id, ofUserID: alice.id, title: "2b", content: "two b",
                                                         weight: 11, at: t0.addingTimeInterval(2)))
            #expect(try store.trashPost(id: edited.id, ofUserID: bob.id, at: t0) == nil, "not bob's")
            let trashed = try #require(try store.trashPost(id: edited.id, ofUserID: alice.id, at: t0.addingTimeInterval(3)))
            #expect(trashed == edited && trashed.photos == [photo], "as it was, for the caller to remove the files")
            #expect(try store.trashPost(id: edited.id, ofUserID: alice.id, at: t0) == nil, "in the trash already")

            // Gone from every read of posts, a tombstone, the counts kept.
            #expect(try store.posts(ids: [edited.id]).isEmpty)
            #expect(try store.posts(ofUserID: alice.id) == [first])
            #expect(try store.postHeadings(ofUserID: alice.id, limit: 9).map(\.id) == [first.id])
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 9).isEmpty)
            #expect(try store.recentPosts(limit: 9).map(\.post.id) == [first.id])
            #expect(try store.deletedPostIDs(ofUserID: alice.id) == [edited.id])
            let entry = try #require(try store.blogIndex(limit: 9).first { $0.name == "alice" })
            #expect(entry.postCount == 1 && entry.lastPostID == first.id)
            #expect(try store.editPost(id: edited.id, ofUserID: alice.id, title: "x", content: "", weight: 1, at: t0) == nil)
            // Its photo: kept, but served by no one, on no post, not pruned.
            #expect(try store.photoData(name: photo.name) == nil)
            #expect(try store.photos(ofUserID: alice.id).isEmpty)
            #expect(try store.deletePhotos(unattachedBefore: t0.addingTimeInterval(86_400 * 365)).isEmpty)
            #expect(throws: StorageError.unknownPhoto) {
                try store.insertPost(userID: alice.id, title: "t", content: "", weight: 1, place: nil, photos: [photo.name],
                                     at: t0, layout: PageLayout(pageSize: 50), token: UUID())
            }
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9)
                    == [TrashedPost(id: edited.id, title: "2b", createdAt: placed.createdAt, trashedAt: t0.addingTimeInterval(3))])
            #expect(try store.trashedPosts(ofUserID: bob.id, limit: 9).isEmpty)

            #expect(try store.restorePost(id: edited.id, ofUserID: bob.id) == nil, "not bob's")
            let restored = try #require(try store.restorePost(id: edited.id, ofUserID: alice.id))
            #expect(restored == edited, "the same id, group, dates, place, text and photos")
            #expect(try store.posts(ofUserID: alice.id) == [edited, first])
            #expect(try store.deletedPostIDs(ofUserID: alice.id).isEmpty)
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9).isEmpty)
            #expect(try store.restorePost(id: edited.id, ofUserID: alice.id) == nil, "restored already")
            #expect(try store.photoData(name: photo.name).map { $0.image == image.image && $0.thumbnail == image.thumbnail } == true)
            #expect(try store.photos(ofUserID: alice.id) == [photo])
            let back = try #require(try store.blogIndex(limit: 9).first { $0.name == "alice" })
            #expect(back.postCount == 2 && back.lastPostID == edited.id)
            let next = try store.addPost(userID: alice.id, title: "3", content: "", at: t0.addingTimeInterval(4))
            #expect(next.id > edited.id)
        }
    }

    /// A post goes back into its own group, or the newest one when its own
    /// is past that; a trashed id is never given to another post.
    @Test(arguments: Backend.available) func restoreChoosesTheGroupAndIdsAreNeverReused(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let layout = PageLayout(pageSize: 1)
            let posts = try (0..<3).map { index in
                try store.addPost(userID: alice.id, title: "p\(index)", content: "", at: t0.addingTimeInterval(Double(index)),
                                  layout: layout)
            }
            #expect(posts.map(\.page) == [1, 2, 3])
            _ = try store.trashPost(id: posts[2].id, ofUserID: alice.id, at: t0)
            _ = try store.trashPost(id: posts[1].id, ofUserID: alice.id, at: t0)
            #expect(try store.restorePost(id: posts[1].id, ofUserID: alice.id)?.page == 2, "its own group")
            let newer = try store.addPost(userID: alice.id, title: "new", content: "", at: t0.addingTimeInterval(9), layout: layout)
            #expect(newer.id > posts[2].id && newer.page == 3, "the trashed id is not given again")
            _ = try store.trashPost(id: newer.id, ofUserID: alice.id, at: t0)
            #expect(try store.restorePost(id: posts[2].id, ofUserID: alice.id)?.page == 3)
        }
    }

    /// A post written while another was in the trash went into a lower
    /// group than the trashed one's: the trashed one comes back into that
    /// group, so it never tops a post written after it.
    @Test(arguments: Backend.available) func restoreNeverTopsANewerPost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let layout = PageLayout(pageSize: 2)
            let posts = try (0..<3).map { index in
                try store.addPost(userID: alice.id, title: "p\(index)", content: "", at: t0.addingTimeInterval(Double(index)),
                                  layout: layout)
            }
            #expect(posts.map(\.page) == [1, 1, 2])
            _ = try store.trashPost(id: posts[2].id, ofUserID: alice.id, at: t0)
            _ = try store.trashPost(id: posts[1].id, ofUserID: alice.id, at: t0)
            let newer = try store.addPost(userID: alice.id, title: "new", content: "", at: t0.addingTimeInterval(9), layout: layout)
            #expect(newer.page == 1)
            #expect(try store.restorePost(id: posts[2].id, ofUserID: alice.id)?.page == 1)
            #expect(try store.restorePost(id: posts[1].id, ofUserID: alice.id)?.page == 1)
            #expect(try store.postHeadings(ofUserID: alice.id, limit: 9).map(\.title) == ["new", "p2", "p1", "p0"])
        }
    }

    @Test(arguments: Backend.available) func purgeTakesTheTextAndPhotosAndKeepsTheTombstone(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = try upload(store, alice.id, seed: 3)
            let old = try store.insertPost(userID: alice.id, title: "old", content: "secret", weight: 9, place: nil,
                                           photos: [photo.name], at: t0, layout: PageLayout(pageSize: 50), token: UUID()).record
            let recent = try store.addPost(userID: alice.id, title: "recent", content: "", at: t0)
            _ = try store.trashPost(id: old.id, ofUserID: alice.id, at: t0)
            _ = try store.trashPost(id: recent.id, ofUserID: alice.id, at: t0.addingTimeInterval(3_600))
            #expect(try store.purgeTrash(trashedBefore: t0, limit: 10) == 0, "strictly before")
            #expect(try store.purgeTrash(trashedBefore: t0.addingTimeInterval(60), limit: 10) == 1)
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9).map(\.id) == [recent.id])
            #expect(try store.restorePost(id: old.id, ofUserID: alice.id) == nil, "purged")
            #expect(try store.deletedPostIDs(ofUserID: alice.id) == [old.id, recent.id], "410 for good")
            #expect(try store.photos(ofUserID: alice.id).isEmpty)
            #expect(try store.purgeTrash(trashedBefore: t0.addingTimeInterval(7_200), limit: 0) == 0, "the limit holds")

            #expect(try store.purgeTrashedPost(id: old.id) == nil, "gone already")
            #expect(try store.purgeTrashedPost(id: recent.id) == alice.id, "the admin's purge, at once")
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9).isEmpty)
        }
    }

    /// A suspended user restores nothing; deleting a user empties their trash.
    @Test(arguments: Backend.available) func suspensionAndUserDeletion(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = try upload(store, alice.id, seed: 5)
            let post = try store.insertPost(userID: alice.id, title: "t", content: "c", weight: 9, place: nil,
                                            photos: [photo.name], at: t0, layout: PageLayout(pageSize: 50), token: UUID()).record
            _ = try store.trashPost(id: post.id, ofUserID: alice.id, at: t0)
            try store.setSuspended(userID: alice.id, true, at: t0)
            #expect(throws: StorageError.unknownUser) { try store.restorePost(id: post.id, ofUserID: alice.id) }
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9).map(\.id) == [post.id], "nothing changed")
            #expect(try store.posts(ofUserID: alice.id).isEmpty)
            try store.deleteUser(id: alice.id)
            #expect(try store.trashedPosts(ofUserID: alice.id, limit: 9).isEmpty)
            #expect(try store.purgeTrashedPost(id: post.id) == nil)
        }
    }
}
