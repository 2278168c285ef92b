import Synchronization

/// A user's pages as a pure function of the database: the main page and
/// the archive pages are rendered from the user's rows (each post's
/// fragment once, through the cache) and written whole. No page is read
/// back to add a post.
final class UserPages: Sendable {
    let store: PageStore
    let layout: PageLayout
    let storage: any BlogStorage
    let cache: FragmentCache
    /// The newest archive page on disk, per user id, once known.
    private let archived = Mutex<[Int64: Int]>([:])

    init(store: PageStore, layout: PageLayout, storage: any BlogStorage, cache: FragmentCache) {
        self.store = store
        self.layout = layout
        self.storage = storage
        self.cache = cache
    }

    /// Writes the pages of `user` as the database holds them now: first
    /// any archive page that newly left the main page (written once, never
    /// again), then the main page. Returns the id of the newest post shown
    /// (0 with none).
    ///
    /// `newest`, when given, are the user's newest posts as the database
    /// holds them now (see `NewPost`); otherwise they are read.
    @discardableResult
    func write(_ user: UserRecord, newest given: [PostStub]? = nil) throws -> Int64 {
        let userID = user.id
        let newest = try given ?? storage.newestPosts(ofUserID: userID)
        let groups = PageGroup.of(newest)
        let plan = layout.plan(last: groups.first, previous: groups.dropFirst().first)
        let known = archived.withLock { $0[userID] }
        let next = known.map { $0 + 1 } ?? firstUnwrittenArchive(of: user.name, newest: plan.newestArchive)
        if next <= plan.newestArchive {
            for number in next...plan.newestArchive {
                try store.write(try archivePage(user, number: number), file: PageRenderer.archiveFile(user: user.name, number: number))
            }
        }
        archived.withLock { $0[userID] = plan.newestArchive }
        let ids = plan.mainPages.map { main in newest.filter { main.contains($0.page) }.map(\.id) } ?? []
        let main = PageRenderer.mainPage(user: user.name, fragments: try fragments(ids),
                                         olderArchive: plan.newestArchive > 0 ? plan.newestArchive : nil)
        try store.write(main, file: PageRenderer.mainFile(user: user.name))
        return ids.first ?? 0
    }

    /// Every page of `user` as the database says it should be, archives
    /// first: file name and bytes.
    func render(_ user: UserRecord) throws -> [(file: String, bytes: [UInt8])] {
        let userID = user.id
        let plan = layout.plan(groups: try storage.pageGroups(ofUserID: userID, limit: nil).reversed())
        var pages: [(file: String, bytes: [UInt8])] = []
        if plan.newestArchive > 0 {
            for number in 1...plan.newestArchive {
                pages.append((PageRenderer.archiveFile(user: user.name, number: number), try archivePage(user, number: number)))
            }
        }
        let ids = try plan.mainPages.map { try storage.postIDs(ofUserID: userID, pages: $0) } ?? []
        pages.append((PageRenderer.mainFile(user: user.name),
                      PageRenderer.mainPage(user: user.name, fragments: try fragments(ids),
                                            olderArchive: plan.newestArchive > 0 ? plan.newestArchive : nil)))
        return pages
    }

    /// Rewrites every page of `user` that is not what `render` gives
    /// (all of them with `force`), and removes archive pages beyond the
    /// newest. Returns whether anything changed on disk.
    @discardableResult
    func repair(_ user: UserRecord, force: Bool = false) throws -> Bool {
        var changed = false
        let pages = try render(user)
        for page in pages where force || store.contents(of: page.file) != page.bytes {
            try store.write(page.bytes, file: page.file)
            changed = true
        }
        var extra = pages.count
        while store.exists(file: PageRenderer.archiveFile(user: user.name, number: extra)) {
            store.remove(file: PageRenderer.archiveFile(user: user.name, number: extra))
            extra += 1
            changed = true
        }
        archived.withLock { $0[user.id] = pages.count - 1 }
        return changed
    }

    /// Forgets what it knew of `user`'s pages on disk (after a failed write).
    func forget(_ user: UserRecord) {
        archived.withLock { $0[user.id] = nil }
    }

    private func archivePage(_ user: UserRecord, number: Int) throws -> [UInt8] {
        let ids = try storage.postIDs(ofUserID: user.id, pages: number...number)
        return PageRenderer.archivePage(user: user.name, number: number, fragments: try fragments(ids))
    }

    /// The archive page to write first when nothing is known of this
    /// user's archives (after a start): one past the newest that exists.
    private func firstUnwrittenArchive(of user: String, newest: Int) -> Int {
        var number = newest
        while number > 0 && !store.exists(file: PageRenderer.archiveFile(user: user, number: number)) { number -= 1 }
        return number + 1
    }

    /// The fragments of `ids`, in order: cached ones copied, the others
    /// fetched in one query, rendered and cached.
    private func fragments(_ ids: [Int64]) throws -> [[UInt8]] {
        var fragments = cache.fragments(ids)
        let missing = zip(ids, fragments).compactMap { $1 == nil ? $0 : nil }
        guard !missing.isEmpty else { return fragments.map { $0! } }
        var rendered: [Int64: [UInt8]] = [:]
        for post in try storage.posts(ids: missing) {
            let fragment = PageRenderer.fragment(post)
            rendered[post.id] = fragment
            cache.store(fragment, for: post.id)
        }
        for index in fragments.indices where fragments[index] == nil {
            fragments[index] = rendered[ids[index]] ?? []
        }
        return fragments.map { $0! }
    }
}
