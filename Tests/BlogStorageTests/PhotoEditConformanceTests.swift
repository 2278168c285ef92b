import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
import BlogPages

/// A post's HTML source and its photos' alt texts kept by every backend,
/// and edits that change the photos and the place, the same everywhere.
@Suite("Photo and place edit conformance")
struct PhotoEditConformanceTests {
    @discardableResult
    private func upload(_ store: any BlogStorage, _ userID: Int64, seed: UInt64) throws -> PostPhoto {
        let photo = testPhoto()
        try store.storePhoto(photo, userID: userID, image: fakeJPEG(2_000, seed: seed),
                             thumbnail: fakeJPEG(300, seed: seed + 1_000), at: t0)
        return photo
    }

    private func post(_ store: any BlogStorage, _ userID: Int64, photos: [PhotoAttachment], html: String? = nil,
                      place: Place? = nil) throws -> PostRecord {
        try store.insertPost(userID: userID, title: "Photos", content: "text", contentHTML: html, weight: 20, place: place,
                             photos: photos, at: t0, layout: PageLayout(pageSize: 50), token: UUID()).record
    }

    private func with(_ photo: PostPhoto, alt: String) -> PostPhoto {
        var photo = photo
        photo.alt = alt
        return photo
    }

    /// Alt texts (spaces, colons, percent signs, any script) and the HTML
    /// source read back from every read of posts, as stored.
    @Test(arguments: Backend.available) func altTextAndHTMLReadBackEverywhere(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let first = try upload(store, alice.id, seed: 1), second = try upload(store, alice.id, seed: 2)
            let alt = "A red door: 100% \"shut\" <b>, in Praha – Малá Страна 🚪"
            let html = "<p>Hello <b>world</b> &amp; <script>x()</script></p>"
            let place = try Place(latitude: "50.08", longitude: "14.42")
            let record = try post(store, alice.id, photos: [PhotoAttachment(name: first.name, alt: alt),
                                                            PhotoAttachment(name: second.name)], html: html, place: place)
            #expect(record.photos == [with(first, alt: alt), second])
            #expect(record.contentHTML == html)
            #expect(record.weight == 20 + PageRenderer.weight(photos: record.photos), "the alt text weighs")
            #expect(record.weight > 20 + PageRenderer.weight(photos: [first, second]))
            let plain = try store.addPost(userID: alice.id, title: "plain", content: "", at: t0)
            #expect(plain.contentHTML == nil)
            #expect(try store.posts(ids: [record.id]) == [record])
            #expect(try store.recentPosts(ofUserID: alice.id, limit: 5) == [plain, record])
            #expect(try store.recentPosts(limit: 5).map(\.post) == [plain, record])
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 5) == [record])
            #expect(try store.photos(ofUserID: alice.id).count == 2)
        }
    }

    /// An edit replaces a photo (the new upload goes on, the old one's row
    /// goes and is returned), changes alt texts, or removes them all; one
    /// without photos keeps them; plain text clears the HTML source.
    @Test(arguments: Backend.available) func editReplacesRemovesAndRedescribesPhotos(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let old = try upload(store, alice.id, seed: 1), fresh = try upload(store, alice.id, seed: 2)
            let record = try post(store, alice.id, photos: [PhotoAttachment(name: old.name, alt: "old")], html: "<p>t</p>")
            let later = t0.addingTimeInterval(5)

            let kept = try #require(try store.editPost(id: record.id, ofUserID: alice.id,
                                                       PostEdit(title: "T", content: "c", contentHTML: "<i>c</i>"),
                                                       weight: 3, at: later))
            #expect(kept.record.photos == [with(old, alt: "old")] && kept.removedPhotos.isEmpty, "nil keeps the photos")
            #expect(kept.record.contentHTML == "<i>c</i>")

            let replaced = try #require(try store.editPost(
                id: record.id, ofUserID: alice.id,
                PostEdit(title: "T", content: "c", photos: [PhotoAttachment(name: fresh.name, alt: "new one")]),
                weight: 3, at: later))
            #expect(replaced.record.photos == [with(fresh, alt: "new one")])
            #expect(replaced.removedPhotos == [with(old, alt: "old")], "for the caller to remove its files")
            #expect(replaced.record.contentHTML == nil, "plain text clears the HTML source")
            #expect(replaced.record.weight == 3 + PageRenderer.weight(photos: [with(fresh, alt: "new one")]))
            #expect(try store.photoData(name: old.name) == nil, "the old photo's row is gone")
            #expect(try store.photos(ofUserID: alice.id) == [fresh])
            #expect(try store.posts(ids: [record.id]) == [replaced.record])

            let described = try #require(try store.editPost(
                id: record.id, ofUserID: alice.id,
                PostEdit(title: "T", content: "c", photos: [PhotoAttachment(name: fresh.name, alt: "better")]),
                weight: 3, at: later))
            #expect(described.record.photos == [with(fresh, alt: "better")] && described.removedPhotos.isEmpty)

            let removed = try #require(try store.editPost(id: record.id, ofUserID: alice.id,
                                                          PostEdit(title: "T", content: "c", photos: []), weight: 3, at: later))
            #expect(removed.record.photos.isEmpty && removed.record.weight == 3)
            #expect(removed.removedPhotos == [with(fresh, alt: "better")])
            #expect(try store.photos(ofUserID: alice.id).isEmpty)
            #expect(try store.newestPosts(ofUserID: alice.id).map(\.weight) == [3], "the layout sees the new weight")
        }
    }

    /// A photo that may not go on the post refuses the whole edit: the
    /// post, its photos and the upload are as they were.
    @Test(arguments: Backend.available) func editIsRefusedUnlessEveryPhotoMayGo(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let mine = try upload(store, alice.id, seed: 1), free = try upload(store, alice.id, seed: 2)
            let elsewhere = try upload(store, alice.id, seed: 3), bobs = try upload(store, bob.id, seed: 4)
            let record = try post(store, alice.id, photos: [PhotoAttachment(name: mine.name)], html: "<p>x</p>")
            _ = try post(store, alice.id, photos: [PhotoAttachment(name: elsewhere.name)])
            let five = try (0..<4).map { try upload(store, alice.id, seed: 10 + UInt64($0)).name } + [mine.name]
            let refused: [(String, [String])] = [
                ("another user's", [bobs.name]),
                ("on another post", [elsewhere.name]),
                ("unknown", [PostPhoto.newName()]),
                ("not a photo's name", ["../../etc/passwd"]),
                ("named twice", [free.name, free.name]),
                ("one too many", five),
            ]
            for (why, names) in refused {
                let edit = PostEdit(title: "changed", content: "changed", photos: PostPhoto.attachments(names), place: .remove)
                #expect(storageError { _ = try store.editPost(id: record.id, ofUserID: alice.id, edit, weight: 7, at: t0) }
                        == .unknownPhoto, "\(why)")
            }
            #expect(try store.posts(ids: [record.id]) == [record], "nothing changed")
            #expect(try store.photoData(name: mine.name) != nil)
            let edit = PostEdit(title: "t", content: "", photos: [PhotoAttachment(name: free.name)])
            #expect(try store.editPost(id: record.id, ofUserID: bob.id, edit, weight: 1, at: t0) == nil, "not bob's")
            #expect(try store.posts(ids: [record.id]) == [record])
            #expect(try store.editPost(id: record.id, ofUserID: alice.id, edit, weight: 1, at: t0)?.record.photos == [free],
                    "the free upload is still free")
        }
    }

    /// An edit sets, changes or removes the place; the map's read follows.
    @Test(arguments: Backend.available) func editSetsChangesAndRemovesThePlace(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let record = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let prague = try Place(latitude: "50.08", longitude: "14.42")
            let paris = try Place(latitude: "48.8584", longitude: "2.2945")
            func edit(_ place: PlaceEdit) throws -> PostRecord? {
                try store.editPost(id: record.id, ofUserID: alice.id, PostEdit(title: "t", content: "c", place: place),
                                   weight: 2, at: t0)?.record
            }
            #expect(try edit(.set(prague))?.place == prague)
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 5).map(\.id) == [record.id])
            #expect(try edit(.keep)?.place == prague)
            #expect(try store.editPost(id: record.id, ofUserID: alice.id, title: "plain", content: "edit", weight: 2,
                                       at: t0)?.place == prague, "a plain edit keeps the place")
            #expect(try edit(.set(paris))?.place == paris)
            #expect(try edit(.remove)?.place == nil)
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 5).isEmpty)
            #expect(try store.posts(ids: [record.id]).first?.place == nil)
        }
    }
}
