import Foundation
import BlogTestSupport
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

@Suite("Pages")
struct PageTests {
    private func post(_ id: Int64, title: String = "Title", content: String = "Text",
                      at date: Date = TestClock.start) -> PostRecord {
        PostRecord(id: id, userID: 1, title: title, content: content, createdAt: date)
    }

    private func postLine(_ post: PostRecord) -> String {
        text(PageRenderer.fragment(post, user: "alice"))
    }

    private func escapeMultiline(_ text: String) -> String {
        var out: [UInt8] = []
        HTMLEscape.appendMultiline(text, to: &out)
        #expect(out.count == HTMLEscape.multilineCount(text), "the weight of a text is what it takes on the page")
        return BlogCoreTests.text(out)
    }

    private func lines(_ page: String) -> [Substring] {
        page.split(separator: "\n", omittingEmptySubsequences: false)
    }

    // MARK: PageRenderer.page

    @Test func emptyPageIsHTML5() {
        let page = PageRenderer.page(user: "User", posts: [])
        let lines = lines(page)
        #expect(lines.first == "<!DOCTYPE html>")
        #expect(page.hasSuffix("</html>\n"))
        #expect(lines.contains("<meta charset=\"utf-8\">"))
        #expect(lines.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        #expect(lines.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        #expect(lines.filter { $0.contains("</h1>") }.count == 1)
        #expect(lines.contains { $0.contains("<h1") && $0.contains(">User</h1>") })
        #expect(page.contains("<title>User – blog</title>"))
        #expect(!page.contains("<article"))
        // The charset declaration comes before anything with text in it.
        let charset = page.range(of: "<meta charset=\"utf-8\">")!.lowerBound
        let title = page.range(of: "<title>")!.lowerBound
        #expect(charset < title)
        // Every element opened is closed.
        for tag in ["html", "head", "body", "main", "title", "h1", "footer"] {
            #expect(page.components(separatedBy: "<\(tag)").count == page.components(separatedBy: "</\(tag)>").count, "\(tag)")
        }
    }

    @Test func postsFollowTheHeadingInGivenOrder() {
        let posts = [post(3, title: "third", at: TestClock.start.addingTimeInterval(120)),
                     post(2, title: "second", at: TestClock.start.addingTimeInterval(60)),
                     post(1, title: "first")]
        let lines = lines(PageRenderer.page(user: "alice", posts: posts))
        let heading = lines.firstIndex { $0.contains("</h1>") }!
        #expect(lines[heading + 1].contains("id=\"post-3\""))
        #expect(lines[heading + 2].contains("id=\"post-2\""))
        #expect(lines[heading + 3].contains("id=\"post-1\""))
        #expect(!lines[heading + 4].contains("<article"))
        #expect(lines.filter { $0.contains("<article") }.count == 3)
    }

    @Test func postLineCarriesIdAndMachineDate() {
        // 2026-11-22T18:47:05Z
        let line = postLine(post(17, title: "Titulek", content: "Zde je text.", at: Date(timeIntervalSince1970: 1_795_373_225)))
        #expect(line.hasPrefix("<article "))
        #expect(line.hasSuffix("</article>"))
        #expect(line.contains("id=\"post-17\""))
        #expect(line.contains("<time class=\"dt-published\" datetime=\"2026-11-22T18:47:05Z\">"))
        #expect(line.contains("22 Nov 2026, 18:47 UTC"))
        #expect(line.contains("Titulek"))
        #expect(line.contains("Zde je text."))
        #expect(!line.contains("\n"))
        // Title comes before the date, the date before the text.
        let title = line.range(of: "Titulek")!.lowerBound
        let date = line.range(of: "<time")!.lowerBound
        let text = line.range(of: "Zde je text.")!.lowerBound
        #expect(title < date && date < text)
    }

    @Test func postDates() {
        #expect(PostDate.machine(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(PostDate.human(Date(timeIntervalSince1970: 0)) == "1 Jan 1970, 00:00 UTC")
        #expect(PostDate.machine(TestClock.start) == "2027-01-15T08:00:00Z")
        #expect(PostDate.human(TestClock.start) == "15 Jan 2027, 08:00 UTC")
        #expect(PostDate.machine(Date(timeIntervalSince1970: 1_795_373_225.999)) == "2026-11-22T18:47:05Z")
        #expect(PostDate.human(Date(timeIntervalSince1970: 1_709_164_799)) == "28 Feb 2024, 23:59 UTC")
        #expect(PostDate.machine(Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29T00:00:00Z")
    }

    // MARK: Escaping

    @Test func userTextIsEscaped() {
        let hostile = "<script>alert(1)</script> & \"quoted\" 'single'"
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39;"
        let line = postLine(post(1, title: hostile, content: hostile))
        #expect(!line.contains("<script>"))
        #expect(!line.contains("</script>"))
        #expect(line.components(separatedBy: escaped).count == 3, "title and content both escaped")
        // The user's name, on the heading and in <title>.
        let page = PageRenderer.page(user: hostile, posts: [post(1, title: hostile, content: hostile)])
        #expect(!page.contains("<script>"))
        // Heading, <title>, the author's card (name and link), the post's
        // title, its text, its link, the feed link's address and title, and
        // the search form's blog: escaped each time.
        #expect(page.components(separatedBy: escaped).count == 11)
        #expect(page.components(separatedBy: "</h1>").count == 2, "a name cannot forge a second heading")
    }

    @Test func escapeFunctions() {
        #expect(HTMLEscape.escape("&<>\"'") == "&amp;&lt;&gt;&quot;&#39;")
        #expect(HTMLEscape.escape("&amp;") == "&amp;amp;")
        #expect(HTMLEscape.escape("plain ünïcödé 😀") == "plain ünïcödé 😀")
        #expect(HTMLEscape.escape("") == "")
        #expect(HTMLEscape.escape("\n") == "\n")
        #expect(escapeMultiline("<a>\n&") == "&lt;a&gt;<br>&amp;")
    }

    @Test(arguments: [
        ("a\nb", "a<br>b"),
        ("a\r\nb", "a<br>b"),
        ("a\rb", "a<br>b"),
        ("a\n\nb", "a<br><br>b"),
        ("a\r\n\r\nb", "a<br><br>b"),
        ("a\r\rb", "a<br><br>b"),
        ("a\n\rb", "a<br><br>b"),
        ("\n", "<br>"),
        ("\r\n", "<br>"),
        ("end\r", "end<br>"),
        ("tab\tkept", "tab\tkept"),
        ("", ""),
    ])
    func lineBreaksBecomeBr(content: String, expected: String) {
        #expect(escapeMultiline(content) == expected)
        let line = postLine(post(1, content: content))
        #expect(line.contains("<div class=\"content e-content\">\(expected)</div>"))
    }

    @Test func eachPostStaysOneLine() {
        let posts = [post(2, content: "one\r\ntwo\rthree\nfour\n"), post(1, content: "\n\n\r\r")]
        let page = PageRenderer.page(user: "alice", posts: posts)
        #expect(!page.unicodeScalars.contains("\r"))
        #expect(lines(page).filter { $0.contains("<article") }.count == 2)
        #expect(lines(page).allSatisfy { !$0.contains("<article") || $0.hasSuffix("</article>") })
        let empty = PageRenderer.page(user: "alice", posts: [])
        // An empty blog says so on one line; each post is one line.
        #expect(lines(page).count == lines(empty).count + 1)
    }

    // MARK: PublicFolder

    @Test func pageURL() {
        let store = PublicFolder(folder: URL(fileURLWithPath: "/srv/public"))
        #expect(store.url(for: "Alice").path == "/srv/public/Alice.html")
    }

    @Test func writeAndRead() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            #expect(store.read(user: "alice") == nil)
            try store.write("first ünïcödé\n", user: "alice")
            #expect(store.read(user: "alice") == "first ünïcödé\n")
            try store.write("second\n", user: "alice")
            #expect(store.read(user: "alice") == "second\n")
            try store.write("", user: "alice")
            #expect(store.read(user: "alice") == "")
            #expect(try fileNames(in: folder) == ["alice.html"], "no temporary files left")
        }
    }

    @Test func largePageIsWrittenWhole() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            let text = String(repeating: "0123456789abcdef", count: 1 << 16) // 1 MiB
            try store.write(text, user: "big")
            #expect(store.read(user: "big") == text)
        }
    }

    @Test func writeReplacesTheFile() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write("old\n", user: "alice")
            let path = store.url(for: "alice").path
            let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
            try store.write("new\n", user: "alice")
            let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
            // A new inode renamed over the old one: readers holding the old file keep a whole page.
            #expect(before != nil && after != nil && before != after)
        }
    }

    @Test func pagePermissions() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write("x\n", user: "alice")
            let attributes = try FileManager.default.attributesOfItem(atPath: store.url(for: "alice").path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o644)
        }
    }

    @Test func writeIntoMissingFolderThrows() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder.appendingPathComponent("missing"))
            #expect(throws: PageError.self) { try store.write("x", user: "alice") }
            do {
                try store.write("x", user: "alice")
            } catch let error as PageError {
                guard case .cannotWrite(_, let code) = error else { return }
                #expect(code == ENOENT)
            }
            #expect(try fileNames(in: folder).isEmpty)
        }
    }

    /// A rewrite keeps the old page as a spare and writes the next one over
    /// it: ten rewrites of two pages (one in a blog's folder) leave one
    /// spare file, in the staging folder beside the public one (0700, same
    /// file system), nothing hidden in the public folder.
    @Test func rewritesReuseOneSpareFileOutsideThePublicFolder() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            for round in 0..<10 {
                try store.write("page \(round)", file: "alice.html")
                try store.write("post \(round)", file: "alice/1.html")
            }
            #expect(store.read(file: "alice.html") == "page 9" && store.read(file: "alice/1.html") == "post 9")
            #expect(store.stagingProblem == nil)
            #expect(try Self.hidden(in: folder) + Self.hidden(in: folder.appendingPathComponent("alice")) == [])
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.stagingPath).count == 1)
            var info = stat(), publicInfo = stat()
            #expect(lstat(store.stagingPath, &info) == 0 && stat(folder.path, &publicInfo) == 0)
            #expect(info.st_mode & 0o777 == 0o700 && info.st_dev == publicInfo.st_dev)
            store.removeSpares()
            #expect(!FileManager.default.fileExists(atPath: store.stagingPath))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["alice", "alice.html"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("alice").path) == ["1.html"])
            // A write after the stop makes the folder again.
            try store.write("page 10", file: "alice.html")
            #expect(store.read(file: "alice.html") == "page 10")
        }
    }

    /// A new post's page takes no spare; a spare deleted under the store
    /// (another instance's start) is made again.
    @Test func newPagesTakeNoSpareAndLostSparesAreMadeAgain() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write(Array("post 1".utf8), file: "bob/1.html", new: true)
            try store.write("post 1, linked", file: "bob/1.html")
            try store.write("post 1, linked again", file: "bob/1.html")
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.stagingPath).count == 1, "the swapped-out page, kept")
            try store.write(Array("post 2".utf8), file: "bob/2.html", new: true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.stagingPath).count == 1, "not taken for a new page")
            for name in try FileManager.default.contentsOfDirectory(atPath: store.stagingPath) {
                try FileManager.default.removeItem(atPath: store.stagingPath + "/" + name)
            }
            try store.write("page", file: "carol.html")
            try store.write("page, again", file: "carol.html")
            #expect(store.read(file: "carol.html") == "page, again")
            store.removeSpares()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["bob", "carol.html"])
        }
    }

    /// A new file is made without a name in its own folder and linked in
    /// whole: nothing in the staging folder, nothing hidden beside it; one
    /// that is there after all is replaced as any page.
    @Test func newFilesAreLinkedInWhole() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write(Array("post 1".utf8), file: "dora/1.html", new: true)
            #expect(store.read(file: "dora/1.html") == "post 1")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("dora").path) == ["1.html"])
            #expect(!FileManager.default.fileExists(atPath: store.stagingPath), "never needed")
            try store.write(Array("post 1 again".utf8), file: "dora/1.html", new: true)
            #expect(store.read(file: "dora/1.html") == "post 1 again")
            #expect(try Self.hidden(in: folder.appendingPathComponent("dora")) == [])
        }
    }

    /// `dropSpares` deletes every old page kept: none of the text a page
    /// held before stays on disk.
    @Test func droppedSparesLeaveNoOldText() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write("secret one", file: "alice.html")
            try store.write("secret two", file: "alice/1.html")
            try store.write("public one", file: "alice.html")
            try store.write("public two", file: "alice/1.html")
            #expect(try Self.texts(under: store.stagingPath).contains { $0.contains("secret") })
            store.dropSpares()
            #expect(try Self.texts(under: store.stagingPath).isEmpty)
            #expect(try Self.texts(under: folder.path).allSatisfy { !$0.contains("secret") })
        }
    }

    /// The site-wide pages' old copies are never kept: they are written
    /// after a deletion has dropped the spares.
    @Test func siteWidePagesKeepNoSpare() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            for round in 0..<3 {
                try store.write("index \(round)", file: IndexPage.fileName)
                try store.write("feed \(round)", file: PageRenderer.siteFeedFile)
            }
            #expect(try Self.texts(under: store.stagingPath).isEmpty)
        }
    }

    /// Where no staging folder can be had (here a file stands where it
    /// goes), pages are still written whole; no spare is kept, and no
    /// hidden file stays in the public folder.
    @Test func withoutStagingFolderNoSpareIsKept() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let public_ = folder.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: public_, withIntermediateDirectories: false)
            let staging = folder.appendingPathComponent("staging").path
            #expect(FileManager.default.createFile(atPath: staging, contents: Data()))
            let store = PublicFolder(folder: public_, staging: staging)
            for round in 0..<5 {
                try store.write("page \(round)", file: "alice.html")
                try store.write("post \(round)", file: "alice/1.html")
            }
            #expect(store.read(file: "alice.html") == "page 4")
            #expect(store.stagingProblem?.contains("not a folder") == true)
            #expect(try Self.hidden(in: public_) + Self.hidden(in: public_.appendingPathComponent("alice")) == [])
        }
    }

    /// A link where the staging folder goes is not followed.
    @Test func stagingFolderIsNotALink() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let public_ = folder.appendingPathComponent("public")
            let elsewhere = folder.appendingPathComponent("elsewhere")
            for made in [public_, elsewhere] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: false) }
            let store = PublicFolder(folder: public_)
            try FileManager.default.createSymbolicLink(atPath: store.stagingPath, withDestinationPath: elsewhere.path)
            try store.write("one", file: "alice.html")
            try store.write("two", file: "alice.html")
            #expect(store.stagingProblem != nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        }
    }

    /// At a start, the staging folder's leftovers and the hidden
    /// temporary files of older versions in the public folder go.
    @Test func leftoversGoAtStart() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try store.write("page", file: "alice.html")
            try store.write("page, again", file: "alice.html")
            try Data("old".utf8).write(to: folder.appendingPathComponent(".alice.html.17.tmp"))
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("alice"), withIntermediateDirectories: false)
            try Data("old".utf8).write(to: folder.appendingPathComponent("alice/.1.html.18.tmp"))
            try Data("crash".utf8).write(to: URL(fileURLWithPath: store.stagingPath + "/19.tmp"))
            #expect(store.removeLeftoverTemporaries() == 3, "the own spare is not counted")
            #expect(try Self.texts(under: store.stagingPath).isEmpty)
            #expect(try Self.hidden(in: folder) + Self.hidden(in: folder.appendingPathComponent("alice")) == [])
        }
    }

    /// Every file's text under `path`, hidden ones included.
    static func texts(under path: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        var texts: [String] = []
        while let name = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
                texts.append(String(decoding: FileManager.default.contents(atPath: path + "/" + name) ?? Data(), as: UTF8.self))
            }
        }
        return texts
    }

    private static func hidden(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
    }

    @Test func failedRenameLeavesNoTemporaryFile() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            // A folder where the page should go: the rename over it fails.
            try FileManager.default.createDirectory(at: store.url(for: "alice"), withIntermediateDirectories: false)
            #expect(throws: PageError.self) { try store.write("x", user: "alice") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["alice.html"])
        }
    }

    @Test func readRefusesInvalidUTF8() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            try Data([0x3C, 0xFF, 0xFE, 0x3E]).write(to: store.url(for: "alice"))
            #expect(store.read(user: "alice") == nil)
        }
    }

    @Test func concurrentWritersLeaveOneWholePage() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = PublicFolder(folder: folder)
            let texts = (0 ..< 40).map { String(repeating: "page \($0)\n", count: 2000) }
            let failures = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: texts.count) { index in
                do { try store.write(texts[index], user: "alice") } catch { failures.append("\(error)") }
            }
            #expect(failures.all.isEmpty)
            let final = try #require(store.read(user: "alice"))
            #expect(texts.contains(final))
            #expect(try fileNames(in: folder) == ["alice.html"])
        }
    }
}
