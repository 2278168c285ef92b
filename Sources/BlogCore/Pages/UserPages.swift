/// Keeps a user's main page and archive pages in step with the database.
public struct UserPages: Sendable {
    public let store: PageStore
    public let layout: PageLayout

    public init(store: PageStore, layout: PageLayout) {
        self.store = store
        self.layout = layout
    }

    /// Writes the empty page of a new user.
    public func create(user: String) throws(PageError) {
        try store.write(PageRenderer.page(user: user, postLines: [], archives: 0), user: user)
    }

    /// Puts a just-committed post at the top of the main page.
    ///
    /// Only the main page is read and written (at most `2 * pageSize`
    /// posts), so the cost does not grow with the user's history. Returns
    /// `false` when the page is missing or damaged and must be rebuilt.
    public func add(_ post: PostRecord, user: String) throws(PageError) -> Bool {
        guard let text = store.read(user: user), let page = ParsedPage(text, user: user) else { return false }
        var lines = [PageRenderer.postLine(post)] + page.postLines
        var archives = page.olderArchive ?? 0
        if lines.count >= 2 * layout.pageSize {
            // Archive first: if the main page write is then lost, the start
            // check sees a stale main page and rebuilds it.
            archives += 1
            let moved = Array(lines.suffix(layout.pageSize))
            try store.write(PageRenderer.archivePage(user: user, number: archives, postLines: moved),
                            file: PageRenderer.archiveFile(user: user, number: archives))
            lines.removeLast(layout.pageSize)
        }
        try store.write(PageRenderer.page(user: user, postLines: lines, archives: archives), user: user)
        return true
    }

    /// Rewrites every page of `user` from `posts` (oldest first), and
    /// removes archive pages beyond the last one.
    public func rebuild(user: String, oldestFirst posts: [PostRecord]) throws(PageError) {
        let (main, archives) = layout.split(oldestFirst: posts)
        for (index, archive) in archives.enumerated() {
            try store.write(PageRenderer.archivePage(user: user, number: index + 1, postLines: archive.map(PageRenderer.postLine)),
                            file: PageRenderer.archiveFile(user: user, number: index + 1))
        }
        try store.write(PageRenderer.page(user: user, postLines: main.map(PageRenderer.postLine), archives: archives.count),
                        user: user)
        var extra = archives.count + 1
        while store.exists(file: PageRenderer.archiveFile(user: user, number: extra)) {
            store.remove(file: PageRenderer.archiveFile(user: user, number: extra))
            extra += 1
        }
    }

    /// Whether the pages of `user` show exactly `postIDs` (oldest first)
    /// where the layout puts them, each page whole.
    public func areCurrent(user: String, oldestFirst postIDs: [Int64]) -> Bool {
        let (main, archives) = layout.split(oldestFirst: postIDs)
        guard let text = store.read(user: user), let page = ParsedPage(text, user: user),
              page.postIDs == main, (page.olderArchive ?? 0) == archives.count
        else { return false }
        for (index, expected) in archives.enumerated() {
            guard let text = store.read(file: PageRenderer.archiveFile(user: user, number: index + 1)),
                  let archive = ParsedPage(text, user: user), archive.postIDs == expected
            else { return false }
        }
        return !store.exists(file: PageRenderer.archiveFile(user: user, number: archives.count + 1))
    }
}
