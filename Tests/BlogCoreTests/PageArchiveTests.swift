import Foundation
import Testing
@testable import BlogCore

/// PageLayout, ParsedPage, UserPages and the archive pages they keep.
@Suite("Page archives")
struct PageArchiveTests {
    private func post(_ id: Int64) -> PostRecord {
        PostRecord(id: id, userID: 1, title: "Post \(id)", content: "text \(id)",
                   createdAt: TestClock.start.addingTimeInterval(Double(id)))
    }

    private func posts(_ range: ClosedRange<Int64>) -> [PostRecord] { range.map(post) }

    private func ids(_ text: String?) -> [Int64]? {
        text.flatMap { ParsedPage($0, user: "alice")?.postIDs }
    }

    // MARK: PageLayout

    @Test func archiveCount() {
        let layout = PageLayout(pageSize: 3)
        #expect((0 ... 12).map { layout.archiveCount(total: $0) } == [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3])
        #expect(PageLayout(pageSize: 1).archiveCount(total: 1) == 0)
        #expect(PageLayout(pageSize: 1).archiveCount(total: 2) == 1)
        #expect(PageLayout(pageSize: 50).archiveCount(total: 99) == 0)
        #expect(PageLayout(pageSize: 50).archiveCount(total: 100) == 1)
    }

    @Test func split() {
        let layout = PageLayout(pageSize: 3)
        let empty = layout.split(oldestFirst: [Int]())
        #expect(empty.main.isEmpty && empty.archives.isEmpty)
        let five = layout.split(oldestFirst: Array(1 ... 5))
        #expect(five.main == [5, 4, 3, 2, 1])
        #expect(five.archives.isEmpty)
        let nine = layout.split(oldestFirst: Array(1 ... 9))
        #expect(nine.main == [9, 8, 7])
        #expect(nine.archives == [[3, 2, 1], [6, 5, 4]])
        let eleven = layout.split(oldestFirst: Array(1 ... 11))
        #expect(eleven.main == [11, 10, 9, 8, 7])
        #expect(eleven.archives == [[3, 2, 1], [6, 5, 4]])
    }

    @Test func splitKeepsEveryPostOnceAndMainPageBounded() {
        for size in 1 ... 6 {
            let layout = PageLayout(pageSize: size)
            for total in 0 ... 40 {
                let (main, archives) = layout.split(oldestFirst: Array(0 ..< total))
                let all = archives.reversed().flatMap { $0 } // newest archive first
                #expect(main + all == Array((0 ..< total).reversed()), "size \(size), total \(total)")
                #expect(archives.allSatisfy { $0.count == size })
                #expect(main.count < 2 * size)
                if total >= size { #expect(main.count >= size) }
            }
        }
    }

    // MARK: Rendering

    @Test func mainPageLinksToNewestArchive() {
        let page = PageRenderer.page(user: "alice", posts: [post(9)], archives: 3)
        #expect(page.contains("<nav class=\"archive\"><a href=\"alice.3.html\">Older posts</a></nav>"))
        #expect(!PageRenderer.page(user: "alice", posts: [post(9)]).contains("<nav"))
        #expect(!PageRenderer.page(user: "alice", posts: [post(9)], archives: 0).contains("<nav"))
    }

    @Test func archivePages() {
        let first = PageRenderer.archivePage(user: "alice", number: 1, postLines: [PageRenderer.postLine(post(2))])
        #expect(first.hasPrefix("<!DOCTYPE html>\n"))
        #expect(first.contains("<meta charset=\"utf-8\">"))
        #expect(first.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        #expect(first.contains("<title>alice (1) – blog</title>"))
        #expect(first.contains("</h1>"))
        #expect(first.contains("<a href=\"alice.html\">Newest posts</a>"))
        #expect(!first.contains("Older posts"))
        let third = PageRenderer.archivePage(user: "alice", number: 3, postLines: [])
        #expect(third.contains("<a href=\"alice.html\">Newest posts</a> <a href=\"alice.2.html\">Older posts</a>"))
        #expect(PageRenderer.archiveFile(user: "alice", number: 7) == "alice.7.html")
    }

    // MARK: ParsedPage

    @Test func parsesRenderedMainPage() throws {
        let lines = [post(3), post(2), post(1)].map(PageRenderer.postLine)
        let page = try #require(ParsedPage(PageRenderer.page(user: "alice", postLines: lines, archives: 4), user: "alice"))
        #expect(page.postIDs == [3, 2, 1])
        #expect(page.postLines == lines)
        #expect(page.olderArchive == 4)
        let bare = try #require(ParsedPage(PageRenderer.page(user: "alice", posts: []), user: "alice"))
        #expect(bare.postIDs.isEmpty)
        #expect(bare.olderArchive == nil)
    }

    @Test func parsedArchivePageKnowsItsOlderArchive() throws {
        // The "Older posts" link of archive 2 points to archive 1; the
        // "Newest posts" link before it must not be mistaken for it.
        let text = PageRenderer.archivePage(user: "alice", number: 2, postLines: [PageRenderer.postLine(post(4))])
        let page = try #require(ParsedPage(text, user: "alice"))
        #expect(page.postIDs == [4])
        #expect(page.olderArchive == 1)
    }

    @Test func refusesDamagedPages() {
        let good = PageRenderer.page(user: "alice", posts: [post(2), post(1)])
        #expect(ParsedPage(good, user: "alice") != nil)
        // Cut short anywhere before the end.
        for cut in [1, 10, good.count / 2, good.count - 1] {
            #expect(ParsedPage(String(good.prefix(cut)), user: "alice") == nil, "cut at \(cut)")
        }
        #expect(ParsedPage("", user: "alice") == nil)
        #expect(ParsedPage("<!DOCTYPE html>\n<p>no heading</p>\n</html>\n", user: "alice") == nil)
        // A post line without a numeric id, or before the heading.
        let noID = PageRenderer.page(user: "alice", posts: [PostRecord(id: nil, userID: 1, title: "t", content: "c", createdAt: TestClock.start)])
        #expect(ParsedPage(noID, user: "alice") == nil)
        let early = "<!DOCTYPE html>\n" + PageRenderer.postLine(post(1)) + "\n<h1>alice</h1>\n</html>\n"
        #expect(ParsedPage(early, user: "alice") == nil)
    }

    // MARK: UserPages

    private func withPages(size: Int, _ body: (UserPages, URL) throws -> Void) throws {
        try withTemporaryFolder { (folder: URL) throws in
            try body(UserPages(store: PageStore(folder: folder), layout: PageLayout(pageSize: size)), folder)
        }
    }

    @Test func createWritesAnEmptyPage() throws {
        try withPages(size: 3) { (pages: UserPages, folder: URL) throws in
            try pages.create(user: "alice")
            #expect(pages.store.read(user: "alice") == PageRenderer.page(user: "alice", posts: []))
            #expect(pages.areCurrent(user: "alice", oldestFirst: []))
            #expect(try fileNames(in: folder) == ["alice.html"])
        }
    }

    @Test func addWithoutAPageAsksForARebuild() throws {
        try withPages(size: 3) { (pages: UserPages, _: URL) throws in
            #expect(try pages.add(post(1), user: "alice") == false)
            #expect(pages.store.read(user: "alice") == nil, "nothing written")
            try pages.store.write("<p>not a page</p>\n", user: "alice")
            #expect(try pages.add(post(1), user: "alice") == false)
            #expect(pages.store.read(user: "alice") == "<p>not a page</p>\n")
        }
    }

    @Test func addArchivesWhenTheMainPageFills() throws {
        try withPages(size: 3) { (pages: UserPages, folder: URL) throws in
            try pages.create(user: "alice")
            for id in Int64(1) ... 5 { #expect(try pages.add(post(id), user: "alice")) }
            #expect(ids(pages.store.read(user: "alice")) == [5, 4, 3, 2, 1])
            #expect(try fileNames(in: folder) == ["alice.html"])
            #expect(try pages.add(post(6), user: "alice"))
            #expect(ids(pages.store.read(user: "alice")) == [6, 5, 4])
            #expect(ids(pages.store.read(file: "alice.1.html")) == [3, 2, 1])
            #expect(ParsedPage(pages.store.read(user: "alice")!, user: "alice")?.olderArchive == 1)
            for id in Int64(7) ... 9 { #expect(try pages.add(post(id), user: "alice")) }
            #expect(ids(pages.store.read(user: "alice")) == [9, 8, 7])
            #expect(ids(pages.store.read(file: "alice.2.html")) == [6, 5, 4])
            #expect(ids(pages.store.read(file: "alice.1.html")) == [3, 2, 1])
            #expect(ParsedPage(pages.store.read(user: "alice")!, user: "alice")?.olderArchive == 2)
            #expect(try fileNames(in: folder) == ["alice.1.html", "alice.2.html", "alice.html"])
        }
    }

    @Test func incrementalAddsEqualAFullRebuild() throws {
        for size in [1, 2, 3, 5] {
            try withTemporaryFolder { (folder: URL) throws in
                let incrementalFolder = folder.appendingPathComponent("inc")
                let rebuiltFolder = folder.appendingPathComponent("full")
                try FileManager.default.createDirectory(at: incrementalFolder, withIntermediateDirectories: false)
                try FileManager.default.createDirectory(at: rebuiltFolder, withIntermediateDirectories: false)
                let layout = PageLayout(pageSize: size)
                let incremental = UserPages(store: PageStore(folder: incrementalFolder), layout: layout)
                let rebuilt = UserPages(store: PageStore(folder: rebuiltFolder), layout: layout)
                try incremental.create(user: "alice")
                for total in Int64(1) ... 16 {
                    #expect(try incremental.add(post(total), user: "alice"))
                    try rebuilt.rebuild(user: "alice", oldestFirst: posts(1 ... total))
                    let names = try fileNames(in: incrementalFolder)
                    #expect(names == (try fileNames(in: rebuiltFolder)), "size \(size), total \(total)")
                    for name in names {
                        #expect(incremental.store.read(file: name) == rebuilt.store.read(file: name), "\(name), size \(size), total \(total)")
                    }
                    #expect(incremental.areCurrent(user: "alice", oldestFirst: Array(1 ... total)))
                }
            }
        }
    }

    @Test func rebuildRemovesArchivesBeyondTheLast() throws {
        try withPages(size: 2) { (pages: UserPages, folder: URL) throws in
            try pages.rebuild(user: "alice", oldestFirst: posts(1 ... 9))
            #expect(try fileNames(in: folder) == ["alice.1.html", "alice.2.html", "alice.3.html", "alice.html"])
            try pages.rebuild(user: "alice", oldestFirst: posts(1 ... 4))
            #expect(try fileNames(in: folder) == ["alice.1.html", "alice.html"])
            try pages.rebuild(user: "alice", oldestFirst: [])
            #expect(try fileNames(in: folder) == ["alice.html"])
            #expect(ids(pages.store.read(user: "alice")) == [])
        }
    }

    @Test func areCurrentNoticesEveryDifference() throws {
        try withPages(size: 2) { (pages: UserPages, _: URL) throws in
            let all = Array(Int64(1) ... 7) // archives [2,1], [4,3]; main [7,6,5]
            func reset() throws { try pages.rebuild(user: "alice", oldestFirst: posts(1 ... 7)) }
            try reset()
            #expect(pages.areCurrent(user: "alice", oldestFirst: all))
            #expect(!pages.areCurrent(user: "alice", oldestFirst: Array(1 ... 6)), "a post the database no longer has")
            #expect(!pages.areCurrent(user: "alice", oldestFirst: Array(1 ... 8)), "a post missing from the page")
            #expect(!pages.areCurrent(user: "bob", oldestFirst: []), "no page at all")

            pages.store.remove(file: "alice.1.html")
            #expect(!pages.areCurrent(user: "alice", oldestFirst: all), "archive missing")
            try reset()
            try pages.store.write("junk", file: "alice.3.html")
            #expect(!pages.areCurrent(user: "alice", oldestFirst: all), "archive beyond the last")
            pages.store.remove(file: "alice.3.html")
            #expect(pages.areCurrent(user: "alice", oldestFirst: all))
            let main = pages.store.read(user: "alice")!
            try pages.store.write(String(main.dropLast(8)), user: "alice")
            #expect(!pages.areCurrent(user: "alice", oldestFirst: all), "main page cut short")
            try reset()
            try pages.store.write(PageRenderer.archivePage(user: "alice", number: 2, postLines: posts(3 ... 3).map(PageRenderer.postLine)),
                                  file: "alice.2.html")
            #expect(!pages.areCurrent(user: "alice", oldestFirst: all), "archive missing a post")
        }
    }

    @Test func pageStoreFiles() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PageStore(folder: folder)
            #expect(!store.exists(file: "alice.1.html"))
            try store.write("one", file: "alice.1.html")
            #expect(store.exists(file: "alice.1.html"))
            #expect(store.read(file: "alice.1.html") == "one")
            store.remove(file: "alice.1.html")
            store.remove(file: "alice.1.html") // removing twice is harmless
            #expect(!store.exists(file: "alice.1.html"))
            #expect(try fileNames(in: folder).isEmpty)
        }
    }
}
