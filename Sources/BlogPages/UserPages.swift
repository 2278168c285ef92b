import Synchronization
import BlogModel

/// A user's pages as a pure function of the database: the main page, the
/// archive pages, each post's own page (or, for a deleted one, its
/// tombstone) and the blog's feed, rendered from the user's rows (each
/// post once, through the cache) and written whole. No page is read back
/// to add a post.
package final class UserPages: Sendable {
    package let store: PublicFolder
    package let layout: PageLayout
    package let storage: any BlogStorage
    package let cache: FragmentCache
    package let feeds: Feeds
    /// What every page's head holds besides its own (`PageRenderer.micropubLink`).
    package let head: [UInt8]
    /// The blogs are served as ActivityPub actors: their pages link to them.
    package let activityPub: Bool
    /// The newest archive page on disk, per user id, once known.
    private let archived = Mutex<[Int64: Int]>([:])

    package init(store: PublicFolder, layout: PageLayout, storage: any BlogStorage, cache: FragmentCache,
         feeds: Feeds = Feeds(baseURL: "http://localhost/"), head: [UInt8] = [], activityPub: Bool = false) {
        self.head = head
        self.activityPub = activityPub
        self.store = store
        self.layout = layout
        self.storage = storage
        self.cache = cache
        self.feeds = feeds
    }

    /// Writes the pages of `user` after new posts, as the database holds
    /// them now: any archive page that newly left the main page, the new
    /// posts' own pages and the page of the post before them (its link to
    /// the newer one), then the main page. Returns the id of the newest
    /// post shown (0 with none).
    ///
    /// The newest posts are read here, under the page lock, not taken
    /// from the insert: an admin command may have changed them since.
    /// `shown` is the newest post the pages showed before, when known: the
    /// posts after it are the new ones.
    @discardableResult
    package func write(_ user: UserRecord, shown: Int64? = nil) throws -> Int64 {
        let userID = user.id
        // One read for both (the settings cost a post no extra trip).
        let (newest, settings) = try storage.newestPostsAndSettings(ofUserID: userID)
        let blog = BlogIdentity(user: user.name, settings: settings, siteURL: feeds.baseURL, activityPub: activityPub)
        let groups = PageGroup.of(newest)
        let plan = layout.plan(last: groups.first, previous: groups.dropFirst().first)
        let known = archived.withLock { $0[userID] }
        let next = known.map { $0 + 1 } ?? firstUnwrittenArchive(of: user.name, newest: plan.newestArchive)
        if next <= plan.newestArchive {
            for number in next...plan.newestArchive {
                try store.write(try archivePage(user, blog, number: number),
                                file: PageRenderer.archiveFile(user: user.name, number: number))
            }
        }
        archived.withLock { $0[userID] = plan.newestArchive }
        let rendered = try renderings(newest, of: user)
        try writeNewPostPages(user, blog, newest: newest, rendered: rendered, shown: shown)
        let onMain = plan.mainPages.map { main in newest.indices.filter { main.contains(newest[$0].page) } } ?? []
        let main = PageRenderer.mainPage(blog: blog, fragments: onMain.map { rendered[$0].fragment },
                                         olderArchive: plan.newestArchive > 0 ? plan.newestArchive : nil, head: head)
        try store.write(main, file: PageRenderer.mainFile(user: user.name))
        return newest.first?.id ?? 0
    }

    /// The own pages of the posts after `shown` and of the one before
    /// them; when `shown` is not known (after a start), of the posts whose
    /// page is missing and of the newest two.
    private func writeNewPostPages(_ user: UserRecord, _ blog: BlogIdentity, newest: [PostStub], rendered: [RenderedPost],
                                   shown: Int64?) throws {
        var fresh = newest.indices.filter { index in
            if let shown { return newest[index].id > shown }
            return index < 2 || !store.exists(file: PageRenderer.postFile(user: user.name, id: newest[index].id))
        }
        if let last = fresh.last, last + 1 < newest.count { fresh.append(last + 1) }
        for index in fresh {
            let older: Int64?
            if index + 1 < newest.count {
                older = newest[index + 1].id
            } else {
                older = try storage.adjacentPosts(to: newest[index], ofUserID: user.id).older?.id
            }
            let newer = index > 0 ? newest[index - 1].id : nil
            let new = shown.map { newest[index].id > $0 } ?? false
            try writePostPage(user, blog, rendered[index], id: newest[index].id, older: older, newer: newer, new: new)
        }
    }

    private func writePostPage(_ user: UserRecord, _ blog: BlogIdentity, _ post: RenderedPost, id: Int64, older: Int64?,
                               newer: Int64?, new: Bool = false) throws {
        // A new post has no responses yet: no query on the posting path.
        let page = PageRenderer.postPage(blog: blog, post: post.meta(id: id), fragment: post.fragment, older: older,
                                         newer: newer, head: head,
                                         responses: new ? [] : try responses(user, postID: id).block)
        try store.write(page, file: PageRenderer.postFile(user: user.name, id: id), new: new)
    }

    /// Writes what an edit or a deletion of `post` (as it was) changed:
    /// the page of its group (the main page, or its archive page), its own
    /// page (a deleted post's becomes a tombstone, and the posts beside it
    /// link past it), the blog's feed; archive pages left beyond the
    /// newest (a group emptied) are removed.
    package func rewrite(_ user: UserRecord, after post: PostStub, deleted: Bool) throws {
        let blog = try identity(user)
        let newest = try storage.newestPosts(ofUserID: user.id)
        let plan = layout.plan(groups: PageGroup.of(newest).reversed())
        if post.page <= plan.newestArchive {
            try store.write(try archivePage(user, blog, number: post.page),
                            file: PageRenderer.archiveFile(user: user.name, number: post.page))
        }
        removeArchives(of: user.name, after: plan.newestArchive)
        archived.withLock { $0[user.id] = plan.newestArchive }
        let onMain = plan.mainPages.map { main in newest.filter { main.contains($0.page) } } ?? []
        try store.write(PageRenderer.mainPage(blog: blog, fragments: try renderings(onMain, of: user).map(\.fragment),
                                              olderArchive: plan.newestArchive > 0 ? plan.newestArchive : nil, head: head),
                        file: PageRenderer.mainFile(user: user.name))
        let around = try storage.adjacentPosts(to: post, ofUserID: user.id)
        if deleted {
            cache.remove(post.id)
            try store.write(Self.tombstone, file: PageRenderer.goneFile(user: user.name, id: post.id))
            store.remove(file: PageRenderer.postFile(user: user.name, id: post.id))
            removeResponsePages(of: user, postID: post.id)
            for neighbour in [around.older, around.newer].compactMap({ $0 }) {
                let links = try storage.adjacentPosts(to: neighbour, ofUserID: user.id)
                try writePostPage(user, blog, try renderings([neighbour], of: user)[0], id: neighbour.id,
                                  older: links.older?.id, newer: links.newer?.id)
            }
        } else if let current = try storage.posts(ids: [post.id]).first {
            try writePostPage(user, blog, try renderings([current.stub], of: user)[0], id: post.id,
                              older: around.older?.id, newer: around.newer?.id)
        }
        try writeFeed(user, blog)
        // The old pages swapped out above hold the deleted post, and older
        // spares may too: none is kept. Every later write of this blog's
        // pages (under the same lock) renders without the post.
        if deleted { store.dropSpares() }
    }

    /// Writes the blog's feed from its newest posts, and its map page
    /// (removed when no post has a place).
    package func writeFeed(_ user: UserRecord) throws {
        try writeFeed(user, try identity(user))
    }

    private func writeFeed(_ user: UserRecord, _ blog: BlogIdentity) throws {
        try store.write(try feed(user, blog), file: PageRenderer.feedFile(user: user.name))
        if let map = try mapPage(user, blog) {
            try store.write(map, file: MapPage.file(user: user.name))
        } else if store.exists(file: MapPage.file(user: user.name)) {
            store.remove(file: MapPage.file(user: user.name))
        }
    }

    /// The map page, nil while no post has a place.
    private func mapPage(_ user: UserRecord, _ blog: BlogIdentity) throws -> [UInt8]? {
        let placed = try storage.placedPosts(ofUserID: user.id, limit: MapPage.limit)
        return placed.isEmpty ? nil : MapPage.render(user: user.name, posts: placed, head: head, blog: blog)
    }

    private func feed(_ user: UserRecord, _ blog: BlogIdentity) throws -> [UInt8] {
        feeds.blog(user.name, created: user.createdAt,
                   posts: try storage.recentPosts(ofUserID: user.id, limit: Feeds.entryLimit), settings: blog.settings)
    }

    /// The blog as its pages show it: its user and settings (read afresh
    /// under the page lock: the admin may have changed them), the site's
    /// URL for the absolute links.
    package func identity(_ user: UserRecord) throws -> BlogIdentity {
        BlogIdentity(user: user.name, settings: try storage.blogSettings(ofUserID: user.id), siteURL: feeds.baseURL,
                     activityPub: activityPub)
    }

    /// A deleted post's marker: the page server answers 410 Gone for the
    /// post's page while it is there (any static server can be told to).
    package static let tombstone = Array("<!DOCTYPE html>\n<title>Deleted</title>\n<p>This post was deleted.</p>\n".utf8)

    /// Every file of `user` as the database says it should be, archives
    /// first: file name and bytes.
    package func render(_ user: UserRecord) throws -> [(file: String, bytes: [UInt8])] {
        try renderAll(user).pages
    }

    /// `render`, with the newest archive page's number.
    private func renderAll(_ user: UserRecord) throws -> (pages: [(file: String, bytes: [UInt8])], newestArchive: Int) {
        let userID = user.id
        let blog = try identity(user)
        let plan = layout.plan(groups: try storage.pageGroups(ofUserID: userID, limit: nil).reversed())
        var pages: [(file: String, bytes: [UInt8])] = []
        if plan.newestArchive > 0 {
            for number in 1...plan.newestArchive {
                pages.append((PageRenderer.archiveFile(user: user.name, number: number), try archivePage(user, blog, number: number)))
            }
        }
        let all = try storage.postStubs(ofUserID: userID, pages: 1...Int(Int32.max))
        let rendered = try renderings(all, of: user)
        let answered = try storage.postIDsWithShownWebmentions(ofUserID: userID)
        let onMain = plan.mainPages.map { main in all.indices.filter { main.contains(all[$0].page) } } ?? []
        pages.append((PageRenderer.mainFile(user: user.name),
                      PageRenderer.mainPage(blog: blog, fragments: onMain.map { rendered[$0].fragment },
                                            olderArchive: plan.newestArchive > 0 ? plan.newestArchive : nil, head: head)))
        for index in all.indices {
            let page = PageRenderer.postPage(blog: blog, post: rendered[index].meta(id: all[index].id),
                                             fragment: rendered[index].fragment,
                                             older: index + 1 < all.count ? all[index + 1].id : nil,
                                             newer: index > 0 ? all[index - 1].id : nil, head: head,
                                             responses: answered.contains(all[index].id)
                                                 ? try responses(user, postID: all[index].id).block : [])
            pages.append((PageRenderer.postFile(user: user.name, id: all[index].id), page))
            if answered.contains(all[index].id) {
                pages += try responsePages(user, postID: all[index].id, title: rendered[index].title)
            }
        }
        for id in try storage.deletedPostIDs(ofUserID: userID) {
            pages.append((PageRenderer.goneFile(user: user.name, id: id), Self.tombstone))
        }
        pages.append((PageRenderer.feedFile(user: user.name), try feed(user, blog)))
        if let map = try mapPage(user, blog) { pages.append((MapPage.file(user: user.name), map)) }
        return (pages, plan.newestArchive)
    }

    /// Rewrites every file of `user` that is not what `render` gives (all
    /// of them with `force`), and removes archive pages beyond the newest
    /// and files in the user's folder that no post or tombstone accounts
    /// for. Returns whether anything changed on disk.
    @discardableResult
    package func repair(_ user: UserRecord, force: Bool = false) throws -> Bool {
        var changed = false
        let (pages, archives) = try renderAll(user)
        for page in pages where force || store.contents(of: page.file) != page.bytes {
            try store.write(page.bytes, file: page.file)
            changed = true
        }
        changed = removeArchives(of: user.name, after: archives) || changed
        let expected = Set(pages.map(\.file))
        // Hidden names are writes under way (and crash leftovers, which the
        // start removes): never touched here.
        var removed = false
        for name in store.files(in: user.name) where !name.hasPrefix(".") && !expected.contains(user.name + "/" + name)
            && !Self.isPhotoFile(name, in: user.name) {
            store.remove(file: user.name + "/" + name)
            removed = true
        }
        let map = MapPage.file(user: user.name)
        if !expected.contains(map) && store.exists(file: map) {
            store.remove(file: map)
            removed = true
        }
        // A page no post accounts for: a post left (one taken back after a
        // failed reply, say), and spares may hold its text.
        if removed { store.dropSpares() }
        changed = changed || removed
        archived.withLock { $0[user.id] = archives }
        return changed
    }

    /// Removes every file of `user`: pages, post pages, tombstones, feed.
    package func removeAll(_ user: UserRecord) {
        if user.name == PostPhoto.folder {
            for name in store.files(in: user.name) where !Self.isPhotoFile(name, in: user.name) {
                store.remove(file: user.name + "/" + name)
            }
        } else {
            store.removeFolder(user.name)
        }
        removeArchives(of: user.name, after: 0)
        store.remove(file: PageRenderer.mainFile(user: user.name))
        store.remove(file: PageRenderer.feedFile(user: user.name))
        store.remove(file: MapPage.file(user: user.name))
        // Spares may hold the user's old pages.
        store.dropSpares()
        forget(user)
    }

    /// Removes archive pages numbered past `newest`; whether there were any.
    @discardableResult
    private func removeArchives(of user: String, after newest: Int) -> Bool {
        var extra = newest + 1
        while store.exists(file: PageRenderer.archiveFile(user: user, number: extra)) {
            store.remove(file: PageRenderer.archiveFile(user: user, number: extra))
            extra += 1
        }
        return extra > newest + 1
    }

    /// Whether `name` in a blog's folder is a photo's file: a blog named
    /// as the photo folder (registered before the name was reserved) shares
    /// it with the photos, whose files are none of its pages' business.
    private static func isPhotoFile(_ name: String, in folder: String) -> Bool {
        folder == PostPhoto.folder && PhotoFiles.photoName(ofFile: name) != nil
    }

    /// Forgets what it knew of `user`'s pages on disk (after a failed write).
    package func forget(_ user: UserRecord) {
        archived.withLock { $0[user.id] = nil }
    }

    package func archivePage(_ user: UserRecord, _ blog: BlogIdentity, number: Int) throws -> [UInt8] {
        let posts = try storage.postStubs(ofUserID: user.id, pages: number...number)
        return PageRenderer.archivePage(blog: blog, number: number,
                                        fragments: try renderings(posts, of: user).map(\.fragment), head: head)
    }

    /// The archive page to write first when nothing is known of this
    /// user's archives (after a start): one past the newest that exists.
    private func firstUnwrittenArchive(of user: String, newest: Int) -> Int {
        var number = newest
        while number > 0 && !store.exists(file: PageRenderer.archiveFile(user: user, number: number)) { number -= 1 }
        return number + 1
    }

    /// The renderings of `posts`, in order: cached ones copied, the others
    /// fetched in one query, rendered and cached.
    package func renderings(_ posts: [PostStub], of user: UserRecord) throws -> [RenderedPost] {
        var rendered = cache.rendered(posts)
        let missing = zip(posts, rendered).compactMap { $1 == nil ? $0.id : nil }
        guard !missing.isEmpty else { return rendered.map { $0! } }
        var fetched: [Int64: RenderedPost] = [:]
        for post in try storage.posts(ids: missing) {
            let rendering = RenderedPost(post, user: user.name)
            fetched[post.id] = rendering
            cache.store(rendering, for: post.id)
        }
        for index in rendered.indices where rendered[index] == nil {
            // A post deleted between the two reads renders as nothing;
            // the deletion's own rewrite follows.
            rendered[index] = fetched[posts[index].id] ?? RenderedPost.missing
        }
        return rendered.map { $0! }
    }
}

extension RenderedPost {
    package static let missing = RenderedPost(fragment: [], title: "", updatedAt: nil)
}
