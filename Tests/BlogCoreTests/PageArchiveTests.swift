import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
import BlogModel
@testable import BlogPages

/// PageLayout's groups, UserPages on a real database, and the archive pages
/// they keep.
@Suite("Page archives")
struct PageArchiveTests {
    // MARK: PageLayout

    /// Posts of `weights` joined one after another as the store joins them;
    /// the groups they fall into, oldest first.
    private func groups(_ weights: [Int], _ layout: PageLayout) -> [PageGroup] {
        var groups: [PageGroup] = []
        for weight in weights {
            let page = layout.page(forWeight: weight, after: groups.last)
            if groups.last?.page != page { groups.append(PageGroup(page: page, count: 0, weight: 0)) }
            groups[groups.count - 1].count += 1
            groups[groups.count - 1].weight += weight
        }
        return groups
    }

    @Test func aGroupClosesAtPageSizePostsOrPageBytes() {
        let layout = PageLayout(pageSize: 3, pageBytes: 100)
        #expect(layout.page(forWeight: 10, after: nil) == 1)
        #expect(layout.page(forWeight: 10, after: PageGroup(page: 1, count: 2, weight: 20)) == 1)
        #expect(layout.page(forWeight: 10, after: PageGroup(page: 1, count: 3, weight: 30)) == 2, "full by count")
        #expect(layout.page(forWeight: 81, after: PageGroup(page: 1, count: 1, weight: 20)) == 2, "over the bytes")
        #expect(layout.page(forWeight: 80, after: PageGroup(page: 1, count: 1, weight: 20)) == 1, "exactly the bytes")
        #expect(layout.page(forWeight: 500, after: nil) == 1, "a group always takes its first post")
    }

    /// With light posts the layout is the one of fixed archives: the main
    /// page holds P to 2P-1 posts, archives exactly P.
    @Test func lightPostsGiveFixedArchivesOfPageSize() {
        let layout = PageLayout(pageSize: 3, pageBytes: 1 << 20)
        let archives = (0...12).map { layout.plan(groups: groups(Array(repeating: 10, count: $0), layout)).newestArchive }
        #expect(archives == [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3])
        for total in 1...40 {
            let all = groups(Array(repeating: 10, count: total), layout)
            let plan = layout.plan(groups: all)
            let main = all.filter { plan.mainPages!.contains($0.page) }.reduce(0) { $0 + $1.count }
            #expect(main < 2 * 3 && (total < 3 || main >= 3), "total \(total): \(main) on the main page")
            #expect(all.filter { $0.page <= plan.newestArchive }.allSatisfy { $0.count == 3 })
        }
    }

    /// Whatever the weights, every post is on exactly one page, the main
    /// page holds at most 2P-1 posts, and at most `pageBytes` unless it
    /// shows a single group of one oversized post.
    @Test func theMainPageStaysBoundedByCountAndBytes() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let layout = PageLayout(pageSize: Int.random(in: 1...6, using: &random), pageBytes: Int.random(in: 50...400, using: &random))
            let weights = (0..<Int.random(in: 0...60, using: &random)).map { _ in Int.random(in: 0...300, using: &random) }
            let all = groups(weights, layout)
            let plan = layout.plan(groups: all)
            #expect(all.reduce(0) { $0 + $1.count } == weights.count)
            guard let main = plan.mainPages else {
                #expect(weights.isEmpty)
                continue
            }
            #expect(main.upperBound == all.last!.page && plan.newestArchive == main.lowerBound - 1)
            let shown = all.filter { main.contains($0.page) }
            #expect(shown.reduce(0) { $0 + $1.count } < 2 * layout.pageSize)
            let weight = shown.reduce(0) { $0 + $1.weight }
            let oneOversized = shown.count == 1 && shown[0].count == 1
            let fullGroupAlone = shown.count == 1 && shown[0].count == layout.pageSize
            #expect(weight <= layout.pageBytes || oneOversized || (fullGroupAlone && layout.pageSize == 1),
                    "\(shown) over \(layout.pageBytes)")
        }
    }

    /// A page of maximum-size posts: each is a group of its own, and the
    /// main page shows the newest group only, so a small post after them
    /// costs a small page.
    @Test func afterHugePostsTheMainPageShowsOnlyTheOpenGroup() {
        let layout = PageLayout(pageSize: 50, pageBytes: 256 * 1024)
        let huge = 390_000
        let all = groups(Array(repeating: huge, count: 20) + [300], layout)
        #expect(all.count == 21)
        #expect(layout.plan(groups: all) == PageLayout.Plan(mainPages: 21...21, newestArchive: 20))
    }

    // MARK: Rendering

    @Test func mainPageLinksToNewestArchive() {
        let page = text(PageRenderer.mainPage(user: "alice", fragments: [], olderArchive: 3))
        #expect(page.contains("<nav class=\"archive\"><a href=\"alice.3.html\">Older posts</a> <a href=\"index.html\">All blogs</a></nav>"))
        #expect(!text(PageRenderer.mainPage(user: "alice", fragments: [], olderArchive: nil)).contains("Older posts"))
    }

    @Test func archivePages() {
        let post = PostRecord(id: 2, userID: 1, title: "Post 2", content: "text", createdAt: TestClock.start)
        let first = text(PageRenderer.archivePage(user: "alice", number: 1, fragments: [PageRenderer.fragment(post, user: "alice")]))
        #expect(first.hasPrefix("<!DOCTYPE html>\n"))
        #expect(first.contains("<meta charset=\"utf-8\">"))
        #expect(first.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        #expect(first.contains("<title>alice (1) – blog</title>"))
        #expect(first.contains("</h1>"))
        #expect(first.contains("<a href=\"alice.html\">Newest posts</a>"))
        #expect(!first.contains("Older posts"))
        let third = text(PageRenderer.archivePage(user: "alice", number: 3, fragments: []))
        #expect(third.contains("<a href=\"alice.html\">Newest posts</a> <a href=\"alice.2.html\">Older posts</a>"))
        #expect(PageRenderer.archiveFile(user: "alice", number: 7) == "alice.7.html")
    }

    // MARK: UserPages on a real database

    private struct Fixture {
        let store: SQLiteStore
        let folder: URL
        let layout: PageLayout
        let user: UserRecord

        func pages(cache: FragmentCache = FragmentCache()) -> UserPages {
            UserPages(store: PublicFolder(folder: folder), layout: layout, storage: store, cache: cache)
        }

        @discardableResult
        func post(_ index: Int, content: String = "text") throws -> PostRecord {
            try store.addPost(userID: user.id, title: "Post \(index)", content: content,
                              at: TestClock.start.addingTimeInterval(Double(index)), layout: layout)
        }

        /// The post ids on a page file, top to bottom (nil: no file).
        func ids(_ file: String) -> [Int64]? {
            PublicFolder(folder: folder).read(file: file).map { page in
                page.split(separator: "\n").compactMap { line in
                    line.firstMatch(of: /<article[^>]* id="post-(\d+)"/).flatMap { Int64($0.1) }
                }
            }
        }
    }

    private func withFixture(size: Int, bytes: Int = 1 << 20, _ body: (Fixture) throws -> Void) throws {
        try withTemporaryFolder { (folder: URL) throws in
            let pagesFolder = folder.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: pagesFolder, withIntermediateDirectories: false)
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let user = try store.createUser(name: "alice", passwordHash: "x", at: TestClock.start)
            try body(Fixture(store: store, folder: pagesFolder, layout: PageLayout(pageSize: size, pageBytes: bytes), user: user))
        }
    }

    @Test func aNewUserGetsAnEmptyMainPage() throws {
        try withFixture(size: 3) { (fx: Fixture) throws in
            #expect(try fx.pages().write(fx.user) == 0)
            #expect(PublicFolder(folder: fx.folder).read(user: "alice") == PageRenderer.page(user: "alice", posts: []))
            #expect(try fileNames(in: fx.folder) == ["alice.html"])
        }
    }

    @Test func archivesAppearAsTheMainPageFills() throws {
        try withFixture(size: 3) { (fx: Fixture) throws in
            let pages = fx.pages()
            for index in 1...5 { try fx.post(index) }
            #expect(try pages.write(fx.user) == 5)
            #expect(fx.ids("alice.html") == [5, 4, 3, 2, 1])
            #expect(try fileNames(in: fx.folder) == ["alice.html"])
            try fx.post(6)
            try pages.write(fx.user)
            #expect(fx.ids("alice.html") == [6, 5, 4])
            #expect(fx.ids("alice.1.html") == [3, 2, 1])
            #expect(PublicFolder(folder: fx.folder).read(user: "alice")!.contains("href=\"alice.1.html\">Older posts"))
            for index in 7...9 { try fx.post(index) }
            try pages.write(fx.user)
            #expect(fx.ids("alice.html") == [9, 8, 7])
            #expect(fx.ids("alice.2.html") == [6, 5, 4])
            #expect(fx.ids("alice.1.html") == [3, 2, 1])
            #expect(try fileNames(in: fx.folder) == ["alice.1.html", "alice.2.html", "alice.html"])
        }
    }

    /// An archive page is written once: later posts never touch it.
    @Test func anArchivePageIsWrittenOnce() throws {
        try withFixture(size: 2) { (fx: Fixture) throws in
            let pages = fx.pages()
            for index in 1...4 { try fx.post(index) }
            try pages.write(fx.user)
            let store = PublicFolder(folder: fx.folder)
            try store.write("marker", file: "alice.1.html")
            for index in 5...9 {
                try fx.post(index)
                try pages.write(fx.user)
            }
            #expect(store.read(file: "alice.1.html") == "marker")
            #expect(fx.ids("alice.3.html") == [6, 5])
        }
    }

    /// After a restart nothing is known of the archives on disk: the ones
    /// there stay, the missing ones are written.
    @Test func aFreshWriterWritesOnlyMissingArchives() throws {
        try withFixture(size: 2) { (fx: Fixture) throws in
            for index in 1...4 { try fx.post(index) }
            try fx.pages().write(fx.user)
            let store = PublicFolder(folder: fx.folder)
            try store.write("marker", file: "alice.1.html")
            for index in 5...8 { try fx.post(index) }
            try fx.pages().write(fx.user)
            #expect(store.read(file: "alice.1.html") == "marker")
            #expect(fx.ids("alice.2.html") == [4, 3])
            #expect(fx.ids("alice.3.html") == [6, 5])
            #expect(fx.ids("alice.html") == [8, 7])
        }
    }

    /// Written one post at a time, or all at once from the database: the
    /// same bytes, for every page size and with heavy posts among light.
    @Test(arguments: [1, 2, 3, 5])
    func writingAfterEachPostEqualsRenderingFromTheDatabase(size: Int) throws {
        try withFixture(size: size, bytes: 60) { (fx: Fixture) throws in
            let pages = fx.pages()
            try pages.write(fx.user)
            for index in 1...16 {
                try fx.post(index, content: index % 5 == 0 ? String(repeating: "\"", count: 20) : "t")
                try pages.write(fx.user)
                try pages.writeFeed(fx.user)
                let rendered = try fx.pages(cache: FragmentCache()).render(fx.user)
                #expect(try allFileNames(in: fx.folder) == rendered.map(\.file).sorted(), "size \(size), \(index) posts")
                for page in rendered {
                    #expect(PublicFolder(folder: fx.folder).contents(of: page.file) == page.bytes, "\(page.file), size \(size), \(index) posts")
                }
            }
        }
    }

    @Test func repairRewritesWhatDiffersAndRemovesArchivesBeyondTheNewest() throws {
        try withFixture(size: 2) { (fx: Fixture) throws in
            for index in 1...7 { try fx.post(index) }  // archives [2,1], [4,3]; main [7,6,5]
            let pages = fx.pages()
            let store = PublicFolder(folder: fx.folder)
            #expect(try pages.repair(fx.user), "nothing was there")
            #expect(try !pages.repair(fx.user), "all current")
            store.remove(file: "alice.1.html")
            try store.write("junk", file: "alice.3.html")
            try store.write(String(store.read(user: "alice")!.dropLast(8)), user: "alice")
            #expect(try pages.repair(fx.user))
            #expect(try fileNames(in: fx.folder) == ["alice.1.html", "alice.2.html", "alice.html"])
            #expect(try pages.areCurrent(fx.user))
        }
    }

    @Test func pageStoreFiles() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            #expect(!store.exists(file: "alice.1.html"))
            try store.write("one", file: "alice.1.html")
            #expect(store.exists(file: "alice.1.html"))
            #expect(store.read(file: "alice.1.html") == "one")
            #expect(store.contents(of: "alice.1.html") == Array("one".utf8))
            store.remove(file: "alice.1.html")
            store.remove(file: "alice.1.html") // removing twice is harmless
            #expect(!store.exists(file: "alice.1.html"))
            #expect(try fileNames(in: folder).isEmpty)
        }
    }

    @Test func theFragmentCacheStaysWithinItsBytes() {
        let cache = FragmentCache(capacity: 100)
        for id in Int64(1)...30 { cache.store(RenderedPost(fragment: Array(repeating: 0, count: 10), title: "", updatedAt: nil), for: id) }
        #expect(cache.byteCount <= 100)
        let stub = { (id: Int64) in PostStub(id: id, page: 1, weight: 0) }
        #expect(cache.rendered([stub(30)]) [0] != nil, "the newest stay")
        #expect(cache.rendered([stub(1)])[0] == nil, "the oldest go")
        #expect(cache.rendered([PostStub(id: 30, page: 1, weight: 0, updatedAt: Date())])[0] == nil, "an older edit is stale")
        cache.remove(30)
        #expect(cache.rendered([stub(30)])[0] == nil)
    }

    /// The insert puts each post in the group the layout chooses after the
    /// newest group as a read just before it gives, by count and by weight.
    @Test func theInsertChoosesTheGroupTheLayoutWould() throws {
        try withFixture(size: 3, bytes: 50) { (fx: Fixture) throws in
            for index in 1...20 {
                let content = index % 4 == 0 ? String(repeating: "x", count: 45) : "y"
                let weight = PageRenderer.weight(title: "T\(index)", content: content)
                let newest = try fx.store.pageGroups(ofUserID: fx.user.id, limit: 1).first
                let stored = try fx.store.insertPost(userID: fx.user.id, title: "T\(index)", content: content,
                                                     weight: weight, at: TestClock.start, layout: fx.layout)
                #expect(stored.record.page == fx.layout.page(forWeight: weight, after: newest), "post \(index)")
            }
        }
    }
}
