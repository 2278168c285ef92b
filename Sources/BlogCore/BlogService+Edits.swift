import BlogWire
import Foundation
import BlogModel
import BlogPages

/// `posts`, `editpost` and `delpost`: an author's own posts, under the
/// rule that governs posting (`mayActAs`). `delpost` moves a post to the
/// trash (see `BlogService+Trash`).
extension BlogService {
    /// Posts a `posts:NAME` lists at most.
    public static let listedPosts = 50

    func listPosts(_ user: Username, _ session: Session) -> (reply: Reply, body: [UInt8]?) {
        do {
            guard let owner = try activeUser(user), try mayActAs(user, session) else { return (.postRefused, nil) }
            let headings = try storage.postHeadings(ofUserID: owner.id, limit: Self.listedPosts)
            let listing = Reply.postListing(headings.map { ($0.id, PostDate.machine($0.createdAt), $0.title) })
            return (.postsListed, listing)
        } catch {
            logger.error("posts failed", metadata: ["user": "\(user)", "error": "\(error)"])
            return (.databaseError, nil)
        }
    }

    /// `extras` (the web client's and Micropub's) may set the HTML source,
    /// the photos and the place too; the photos the post loses go with
    /// their files, once the pages no longer show them.
    func editPost(_ user: Username, _ id: Int64, _ title: Title, _ content: PostText, _ extras: PostExtras,
                  _ session: Session) -> Reply {
        let (title, content) = (title.value, content.value)
        do {
            guard let owner = try activeUser(user), try mayActAs(user, session) else { return .editRefused }
            let weight = PageRenderer.weight(title: title, content: content)
            let edit = PostEdit(title: title, content: content, contentHTML: extras.contentHTML, photos: extras.photos,
                                place: extras.place, categories: extras.categories)
            let hold = MentionHold(storage, holding: owner.id)
            defer { hold.release() }
            guard let edited = try storage.editPost(id: id, ofUserID: owner.id, edit, weight: weight,
                                                    at: now().wholeMilliseconds) else { return .editRefused }
            // Their rows are gone: whatever becomes of the pages, their
            // files are no one's to see.
            defer { photoFiles.remove(edited.removedPhotos) }
            fragments.store(RenderedPost(edited.record, user: owner.name), for: id)
            try rewritePages(of: owner, after: edited.record.stub, deleted: false)
            hold.release()
            mentionSignal.changed()
            return .edited
        } catch StorageError.unknownPhoto {
            return .editRefused
        } catch {
            // Stored or not, the pages are not known to show it: the next
            // write of this blog, or the start-up check, brings them in line.
            logger.error("editpost failed", metadata: ["user": "\(user)", "post": "\(id)", "error": "\(error)"])
            return .databaseError
        }
    }

    func deletePost(_ user: Username, _ id: Int64, _ session: Session) -> Reply {
        do {
            guard let owner = try activeUser(user), try mayActAs(user, session) else { return .deleteRefused }
            // To the trash: gone from every page now, restorable for
            // `trashDays` (`restorePost`), then purged.
            let hold = MentionHold(storage, holding: owner.id)
            defer { hold.release() }
            guard let removed = try storage.trashPost(id: id, ofUserID: owner.id, at: now().wholeMilliseconds) else {
                return .deleteRefused
            }
            try showTrashState(of: owner, post: removed.stub, photos: removed.photos, expected: nil)
            hold.release()
            mentionSignal.changed(removed.content)
            return .deleted
        } catch {
            logger.error("delpost failed", metadata: ["user": "\(user)", "post": "\(id)", "error": "\(error)"])
            return .databaseError
        }
    }

    /// The user of that name as the database has it now, unless suspended.
    func activeUser(_ user: Username) throws(StorageError) -> UserRecord? {
        try storage.user(named: user.value).flatMap { $0.suspended ? nil : $0 }
    }

    /// Every page an edit or deletion of `post` changed, its feed, the
    /// index and the site feed, before the reply.
    func rewritePages(of owner: UserRecord, after post: PostStub, deleted: Bool) throws {
        try storage.withPageLock(userID: owner.id) { try userPages.rewrite(owner, after: post, deleted: deleted) }
        index.flush(0, .all)
    }
}
