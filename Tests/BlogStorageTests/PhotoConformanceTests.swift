import BlogCore
import BlogTestSupport
import BlogWire
import Dispatch
import Foundation
import Testing
import BlogModel
import BlogPages

/// Photos in every backend: stored durable and exact, attached by a post's
/// insert only when they may be, and gone with their post or their user.
@Suite("Photo storage conformance")
struct PhotoConformanceTests {
    /// Stores a photo of `userID` with its own bytes; returns it.
    @discardableResult
    private func upload(_ store: any BlogStorage, _ userID: Int64, at date: Date = t0, seed: UInt64 = 1,
                        photo: PostPhoto = testPhoto()) throws -> PostPhoto {
        try store.storePhoto(photo, userID: userID, image: fakeJPEG(2_000, seed: seed),
                             thumbnail: fakeJPEG(300, seed: seed + 1_000), at: date)
        return photo
    }

    private func post(_ store: any BlogStorage, _ userID: Int64, photos: [String], place: Place? = nil,
                      layout: PageLayout = PageLayout(pageSize: 50)) throws -> PostRecord {
        try store.insertPost(userID: userID, title: "With photos", content: "text", weight: 20, place: place,
                             photos: photos, at: t0, layout: layout, token: UUID()).record
    }

    @Test(arguments: Backend.available) func storedBytesReadBackExactly(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = testPhoto(width: 3, height: 2, thumbnailWidth: 2, thumbnailHeight: 1)
            let image = fakeJPEG(300_000, seed: 7)
            try store.storePhoto(photo, userID: alice.id, image: image, thumbnail: fakeJPEG(300, seed: 8), at: t0)
            let data = try #require(try store.photoData(name: photo.name))
            #expect(data.image == image)
            #expect(data.thumbnail == fakeJPEG(300, seed: 8))
            #expect(try store.photos(ofUserID: alice.id) == [photo])
            #expect(try store.photoData(name: PostPhoto.newName()) == nil)
            #expect(try store.photos(ofUserID: alice.id + 1).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func storingIsRefusedForNoOrSuspendedUserAndATakenName(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(storageError { try upload(store, 4242) } == .unknownUser)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = try upload(store, alice.id)
            #expect(storageError { try upload(store, alice.id, photo: photo) } == .photoNameTaken)
            try store.setSuspended(userID: alice.id, true, at: t0)
            #expect(storageError { try upload(store, alice.id) } == .unknownUser)
            #expect(try store.photos(ofUserID: alice.id) == [photo])
        }
    }

    /// Attached in the given order; every read of posts has them, an edit
    /// keeps them, and they weigh what their markup does.
    @Test(arguments: Backend.available) func attachedPhotosReadBackFromEveryPostRead(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let first = try upload(store, alice.id, seed: 1), second = try upload(store, alice.id, seed: 2)
            let place = try Place(latitude: "50.08", longitude: "14.42")
            let record = try post(store, alice.id, photos: [second.name, first.name], place: place)
            #expect(record.photos == [second, first], "in the order given")
            #expect(record.weight == 20 + PageRenderer.weight(photos: [second, first]))
            let plain = try store.addPost(userID: alice.id, title: "plain", content: "", at: t0)
            #expect(plain.photos.isEmpty)
            #expect(try store.posts(ids: [record.id]) == [record])
            #expect(try store.recentPosts(ofUserID: alice.id, limit: 5) == [plain, record])
            #expect(try store.recentPosts(limit: 5).map(\.post) == [plain, record])
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 5) == [record])
            #expect(try store.newestPosts(ofUserID: alice.id).map(\.weight) == [plain.weight, record.weight])
            let edited = try #require(try store.editPost(id: record.id, ofUserID: alice.id, title: "Edited", content: "x",
                                                         weight: 7, at: t0.addingTimeInterval(5)))
            #expect(edited.photos == [second, first], "an edit keeps the photos")
            #expect(edited.weight == 7 + PageRenderer.weight(photos: [second, first]), "and their weight")
            #expect(try store.posts(ids: [record.id]) == [edited])
            #expect(try store.photos(ofUserID: alice.id).count == 2)
        }
    }

    /// A photo that may not go on the post refuses the whole insert: no
    /// post, and every photo still free.
    @Test(arguments: Backend.available) func attachingIsRefusedUnlessEveryPhotoMayGo(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let mine = try upload(store, alice.id, seed: 1)
            let bobs = try upload(store, bob.id, seed: 2)
            let taken = try upload(store, alice.id, seed: 3)
            _ = try post(store, alice.id, photos: [taken.name])
            let five = try (0..<5).map { try upload(store, alice.id, seed: 10 + UInt64($0)).name }
            let refused: [(String, [String])] = [
                ("another user's", [mine.name, bobs.name]),
                ("on a post already", [mine.name, taken.name]),
                ("unknown", [mine.name, PostPhoto.newName()]),
                ("not a photo's name", [mine.name, "../../etc/passwd"]),
                ("named twice", [mine.name, mine.name]),
                ("one too many", five),
            ]
            for (why, names) in refused {
                #expect(storageError { _ = try post(store, alice.id, photos: names) } == .unknownPhoto, "\(why)")
            }
            #expect(try store.posts(ofUserID: alice.id).count == 1, "nothing stored")
            #expect(try store.userSummaries().first?.postCount == 1)
            // Each is still free: four of the five, and mine, go on posts now.
            #expect(try post(store, alice.id, photos: Array(five.prefix(4))).photos.count == 4)
            #expect(try post(store, alice.id, photos: [mine.name]).photos == [mine])
            #expect(storageError { _ = try post(store, bob.id, photos: [mine.name]) } == .unknownPhoto)
        }
    }

    /// Posts racing for one photo: exactly one gets it.
    @Test(arguments: Backend.available) func onePhotoGoesOnOnePost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = try upload(store, alice.id)
            let results = Collector<StorageError?>()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                results.append(storageError { _ = try post(store, alice.id, photos: [photo.name]) })
            }
            #expect(results.all.filter { $0 == nil }.count == 1)
            #expect(results.all.filter { $0 == .unknownPhoto }.count == 7)
            #expect(try store.posts(ofUserID: alice.id).map(\.photos) == [[photo]])
        }
    }

    /// The photos' weight counts where the group is chosen.
    @Test(arguments: Backend.available) func photosWeighInThePageGroups(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let layout = PageLayout(pageSize: 10, pageBytes: 200)
            let first = try post(store, alice.id, photos: [], layout: layout)
            let photo = try upload(store, alice.id)
            #expect(20 + 20 <= 200 && 20 + 20 + PageRenderer.weight(photos: [photo]) > 200, "only the photo tips it")
            let second = try post(store, alice.id, photos: [photo.name], layout: layout)
            #expect(first.page == 1 && second.page == 2, "\(first.page), \(second.page)")
        }
    }

    /// A deleted post's photos go with it; a post taken back (no
    /// tombstone) leaves them free for the retry.
    @Test(arguments: Backend.available) func removingAPostRemovesOrFreesItsPhotos(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let kept = try upload(store, alice.id, seed: 1), deleted = try upload(store, alice.id, seed: 2)
            let record = try post(store, alice.id, photos: [deleted.name])
            #expect(try store.removePost(id: record.id, ofUserID: bob.id, tombstone: true) == nil, "not bob's")
            #expect(try store.photoData(name: deleted.name) != nil)
            let removed = try #require(try store.removePost(id: record.id, ofUserID: alice.id, tombstone: true))
            #expect(removed.photos == [deleted], "for the caller to remove the files")
            #expect(try store.photoData(name: deleted.name) == nil)
            #expect(try store.photos(ofUserID: alice.id) == [kept])

            let takenBack = try post(store, alice.id, photos: [kept.name])
            try store.deletePost(id: takenBack.id)
            #expect(try store.photoData(name: kept.name) != nil)
            #expect(try post(store, alice.id, photos: [kept.name]).photos == [kept], "free again")
        }
    }

    /// Only photos on no post, stored before the date, are pruned.
    @Test(arguments: Backend.available) func unattachedPhotosArePruned(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let old = try upload(store, alice.id, at: t0, seed: 1)
            let attached = try upload(store, alice.id, at: t0, seed: 2)
            let recent = try upload(store, alice.id, at: t0.addingTimeInterval(3_600), seed: 3)
            _ = try post(store, alice.id, photos: [attached.name])
            #expect(try store.deletePhotos(unattachedBefore: t0.addingTimeInterval(60)) == [old])
            #expect(try store.photoData(name: old.name) == nil)
            #expect(Set(try store.photos(ofUserID: alice.id)) == [attached, recent])
            #expect(try store.deletePhotos(unattachedBefore: t0.addingTimeInterval(60)).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func deletingAUserDeletesTheirPhotos(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let free = try upload(store, alice.id, seed: 1), attached = try upload(store, alice.id, seed: 2)
            let bobs = try upload(store, bob.id, seed: 3)
            _ = try post(store, alice.id, photos: [attached.name])
            try store.deleteUser(id: alice.id)
            #expect(try store.photoData(name: free.name) == nil)
            #expect(try store.photoData(name: attached.name) == nil)
            #expect(try store.photos(ofUserID: alice.id).isEmpty)
            #expect(try store.photos(ofUserID: bob.id) == [bobs])
        }
    }
}
