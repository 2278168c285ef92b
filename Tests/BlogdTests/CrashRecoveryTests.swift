import BlogCore
import Foundation
import Synchronization
import Testing
import BlogSQLite
import BlogModel
import BlogPages

/// The real `blogd`, killed mid-stream and restarted: what it acknowledged
/// is kept, once, and its pages come back in step with the database.
@Suite(.serialized)
struct CrashRecoveryTests {
    let folder: URL
    /// Cheap scrypt, and small pages so archives get written and checked.
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_PAGE_SIZE": "5"]
    /// Posts a page (`BLOGD_PAGE_SIZE`); the posts are light, so page groups
    /// close by count and archives hold exactly this many.
    let pageSize = 5

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var db: String { folder.appendingPathComponent("data/blog.sqlite").path }
    var publicFolder: String { folder.appendingPathComponent("public").path }
    var pageStore: PublicFolder { PublicFolder(folder: URL(fileURLWithPath: publicFolder)) }

    func serve() throws -> BlogdProcess {
        try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", db, "--public", publicFolder],
                         environment: environment)
    }

    func rebuild(_ names: [String]) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(["rebuild", "--db", db, "--public", publicFolder] + names, environment: environment)
    }

    /// The `users=N rebuilt=M` of the start-up page check.
    func pageCheck(_ log: String) -> (users: Int, rebuilt: Int)? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasSuffix("pages checked") }),
              let match = line.firstMatch(of: /rebuilt=(\d+) .*users=(\d+)/)
        else { return nil }
        return (Int(match.2)!, Int(match.1)!)
    }

    /// Posts of `name` in the database, oldest first (read-only).
    func posts(of name: String, in store: SQLiteStore) throws -> [PostRecord] {
        let user = try #require(try store.user(named: name))
        return try store.posts(ofUserID: try #require(user.id)).reversed()
    }

    func inode(_ file: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: publicFolder + "/" + file))?[.systemFileNumber] as? UInt64
    }

    /// Files in the public folder: whole-page checks of every `.html`, and
    /// every other entry returned for the caller to judge. The index page
    /// of all blogs (`index.html`) is checked as a whole document too, but
    /// not returned among the user pages.
    func checkPageFiles(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (pages: Set<String>, others: [String]) {
        var pages = Set<String>()
        var others: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: publicFolder) {
            // What the map pages load, put there by `serve` at its start.
            if name == "map.js" || name == "leaflet" { continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: publicFolder + "/" + name, isDirectory: &isFolder), isFolder.boolValue {
                // A blog's post pages: each a whole document too.
                for inner in try FileManager.default.contentsOfDirectory(atPath: publicFolder + "/" + name) {
                    guard inner.hasSuffix(".html") && !inner.hasPrefix(".") else {
                        others.append(name + "/" + inner)
                        continue
                    }
                    let text = try String(contentsOfFile: publicFolder + "/" + name + "/" + inner, encoding: .utf8)
                    #expect(text.hasPrefix("<!DOCTYPE html>") && text.hasSuffix("</html>\n"),
                            "\(context): \(name)/\(inner) is not a whole document", sourceLocation: sourceLocation)
                }
                continue
            }
            if name.hasSuffix(".atom") && !name.hasPrefix(".") {
                let text = try String(contentsOfFile: publicFolder + "/" + name, encoding: .utf8)
                #expect(text.hasPrefix("<?xml") && text.hasSuffix("</feed>\n"),
                        "\(context): \(name) is not a whole feed", sourceLocation: sourceLocation)
                continue
            }
            // The sitemap and robots.txt, whole files too (written by rename).
            if (name.hasPrefix("sitemap") && name.hasSuffix(".xml")) || name == "robots.txt" {
                let text = try String(contentsOfFile: publicFolder + "/" + name, encoding: .utf8)
                #expect(text.hasSuffix("</urlset>\n") || text.hasSuffix("</sitemapindex>\n") || text.hasPrefix("User-agent"),
                        "\(context): \(name) is not a whole file", sourceLocation: sourceLocation)
                continue
            }
            if name.hasSuffix(".html") && !name.hasPrefix(".") {
                if name != "index.html" { pages.insert(name) }
                let text = try #require(try? String(contentsOfFile: publicFolder + "/" + name, encoding: .utf8),
                                        "\(context): \(name) unreadable", sourceLocation: sourceLocation)
                #expect(text.hasPrefix("<!DOCTYPE html>") && text.hasSuffix("</html>\n"),
                        "\(context): \(name) is not a whole document", sourceLocation: sourceLocation)
            } else {
                others.append(name)
            }
        }
        return (pages, others)
    }

    /// The page files the layout prescribes for users with these post counts.
    func expectedPageFiles(_ counts: [String: Int]) -> Set<String> {
        var files = Set<String>()
        for (name, count) in counts {
            files.insert(name + ".html")
            for k in stride(from: 1, through: archiveCount(total: count), by: 1) {
                files.insert(PageRenderer.archiveFile(user: name, number: k))
            }
        }
        return files
    }

    func expectSameFiles(_ found: Set<String>, _ expected: Set<String>, _ context: String,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(found.subtracting(expected).isEmpty, "\(context): unexpected \(found.subtracting(expected).sorted())",
                sourceLocation: sourceLocation)
        #expect(expected.subtracting(found).isEmpty, "\(context): missing \(expected.subtracting(found).sorted())",
                sourceLocation: sourceLocation)
    }

    /// Archive pages that `total` light posts fill: the main page keeps
    /// `pageSize` to `2 * pageSize - 1` of them.
    func archiveCount(total: Int) -> Int {
        total >= 2 * pageSize ? total / pageSize - 1 : 0
    }

    /// The files of `name` and the posts each shows, newest first, for
    /// `posts` (oldest first): archive k posts (k-1)·P+1 ... k·P, the main
    /// page the rest.
    func expectedPages(of name: String, _ posts: [PostRecord]) -> [(file: String, posts: [PostRecord])] {
        let archived = archiveCount(total: posts.count) * pageSize
        var files = [(name + ".html", Array(posts[archived...].reversed()))]
        for start in stride(from: 0, to: archived, by: pageSize) {
            files.append((PageRenderer.archiveFile(user: name, number: start / pageSize + 1),
                          Array(posts[start ..< start + pageSize].reversed())))
        }
        return files
    }

    /// The article lines of a page file, or nil without one.
    func articles(_ file: String) -> [Substring]? {
        pageStore.read(file: file).map { $0.split(separator: "\n").filter { $0.hasPrefix("<article") } }
    }

    func ids(_ articles: [Substring]) -> [Int64] {
        articles.compactMap { $0.firstMatch(of: /id="post-(\d+)"/).flatMap { Int64($0.1) } }
    }

    /// Whether every page of `name` shows what the layout puts there, and
    /// is a whole document.
    func pagesAreCurrent(of name: String, _ posts: [PostRecord]) -> Bool {
        expectedPages(of: name, posts).allSatisfy { file, expected in
            guard let page = pageStore.read(file: file), page.hasSuffix("</html>\n"), let lines = articles(file) else { return false }
            return ids(lines) == expected.compactMap(\.id) && !page.isEmpty
        } && !pageStore.exists(file: PageRenderer.archiveFile(user: name, number: archiveCount(total: posts.count) + 1))
    }

    /// Each page of `name` shows the titles of `posts` (oldest first) where
    /// the layout puts them.
    func expectTitlesOnPages(of name: String, _ posts: [PostRecord], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (file, expected) in expectedPages(of: name, posts) {
            let lines = try #require(articles(file), "\(file) missing", sourceLocation: sourceLocation)
            #expect(ids(lines) == expected.compactMap(\.id), "\(file)", sourceLocation: sourceLocation)
            for (line, post) in zip(lines, expected) {
                #expect(line.contains("\">\(post.title)</a></h2>"), "\(file): \(line)", sourceLocation: sourceLocation)
            }
        }
    }

    /// What the posting threads saw.
    final class Tally: Sendable {
        /// Per thread, the numbers of its posts that got `post:OK`, in order.
        let acknowledged = Mutex<[Int: [Int]]>([:])
        /// Replies other than `post:OK` (or nothing, when the server died).
        let unexpected = Mutex<[String]>([])
        /// All `post:OK` replies so far.
        let count = Atomic<Int>(0)
    }

    @Test func sigkillMidStreamLosesNoAcknowledgedPost() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = (0..<4).map { "crash\($0)" }
        let first = try serve()
        defer { first.ensureStopped() }
        let port = try first.waitForPort()
        for user in users {
            #expect(try exchange("register:\(user):pw-\(user)[E];", port: port) == "reg:OK[E];")
            #expect(try exchange("login:\(user):pw-\(user)[E];", port: port) == "log:OK[E];")
        }

        // Four clients post as fast as they can, one connection per post,
        // until the server dies under them.
        let tally = Tally()
        let finished = DispatchGroup()
        for (k, user) in users.enumerated() {
            finished.enter()
            Thread {
                var acknowledged: [Int] = []
                var n = 0
                while true {
                    n += 1
                    let message = "newpost:\(user):t\(k)-\(n):Post \(n) of client \(k)\nsecond line[E];"
                    guard let reply = try? exchange(message, port: port) else { break }
                    if reply == "post:OK[E];" {
                        acknowledged.append(n)
                        tally.count.add(1, ordering: .relaxed)
                    } else {
                        // Empty: the server died while this post was in flight.
                        if !reply.isEmpty { tally.unexpected.withLock { $0.append(reply) } }
                        break
                    }
                }
                tally.acknowledged.withLock { $0[k] = acknowledged }
                finished.leave()
            }.start()
        }
        // Kill once a few hundred posts are in (at least 1 s of posting; a
        // loaded machine gets up to 6 s), while the clients keep posting.
        let posting = Date()
        while Date().timeIntervalSince(posting) < 6
            && (Date().timeIntervalSince(posting) < 1 || tally.count.load(ordering: .relaxed) < 400) {
            usleep(20_000)
        }
        first.crash()
        #expect(first.process.terminationReason == .uncaughtSignal)
        #expect(first.process.terminationStatus == SIGKILL)
        #expect(finished.wait(timeout: .now() + 120) == .success)
        let acknowledged = tally.acknowledged.withLock { $0 }
        #expect(tally.unexpected.withLock { $0 }.isEmpty, "\(tally.unexpected.withLock { $0 })")
        let totalAcknowledged = acknowledged.values.reduce(0) { $0 + $1.count }
        #expect(totalAcknowledged >= 200, "too few posts before the kill to prove much: \(totalAcknowledged)")

        // Right after the kill, before any repair: pages are replaced by
        // rename, so every page file is a whole document.
        let (_, othersAfterKill) = try checkPageFiles("after SIGKILL")
        for name in othersAfterKill {
            let base = name.split(separator: "/").last.map(String.init) ?? name
            #expect(base.hasPrefix(".") && base.hasSuffix(".tmp"), "unexpected file after the kill: \(name)")
        }

        // Restart on the same data: the start-up check repairs the pages.
        let second = try serve()
        defer { second.ensureStopped() }
        let port2 = try second.waitForPort()
        let check = try #require(pageCheck(second.stderr), "\(second.stderr)")
        #expect(check.users == users.count)
        // The server still works: a client logs in again (leases are kept
        // in memory) and posts.
        #expect(try exchange("login:crash0:pw-crash0[E];", port: port2) == "log:OK[E];")
        #expect(try exchange("newpost:crash0:after-restart:still here[E];", port: port2) == "post:OK[E];")
        #expect(second.stop() == 0)

        let store = try SQLiteStore(path: db, create: false, readOnly: true)
        defer { try? store.close() }
        var counts: [String: Int] = [:]
        var inFlightCommitted = 0
        for (k, user) in users.enumerated() {
            var posts = try posts(of: user, in: store)
            counts[user] = posts.count
            #expect(pagesAreCurrent(of: user, posts), "\(user)")
            try expectTitlesOnPages(of: user, posts)
            if k == 0 {
                #expect(posts.last?.title == "after-restart")
                posts.removeLast()
            }
            // Each client posts one at a time, so its acknowledged posts are
            // 1...a with no gap, and the database holds exactly 1...a, or
            // 1...a+1 when the post in flight at the kill was committed but
            // its reply never left. Each title at most once.
            let mine = acknowledged[k] ?? []
            #expect(mine == (0..<mine.count).map { $0 + 1 }, "\(user) acknowledged \(mine)")
            let stored = posts.map { Int($0.title.dropFirst("t\(k)-".count)) ?? -1 }
            #expect(stored == (0..<stored.count).map { $0 + 1 }, "\(user): \(stored.suffix(5)) of \(stored.count)")
            #expect(stored.count == mine.count || stored.count == mine.count + 1,
                    "\(user): \(stored.count) stored, \(mine.count) acknowledged")
            inFlightCommitted += stored.count - mine.count
            #expect(posts.allSatisfy { $0.content == "Post \(Int($0.title.dropFirst("t\(k)-".count)) ?? -1) of client \(k)\nsecond line" })
        }

        // After the repair: exactly the pages the layout prescribes, each
        // whole. A write cut off by the kill may leave its hidden temporary
        // file (`.NAME.html.RANDOM.tmp`, never served as a page: it is
        // hidden and does not end in .html); the start-up check does not
        // sweep those, so at most one per page writer (a user, or the index
        // page) may be left, and nothing else.
        let (pages, others) = try checkPageFiles("after restart")
        expectSameFiles(pages, expectedPageFiles(counts), "after restart")
        let leftover = /(crash\d\/)?\.(crash\d|index|\d+)(\.\d+)?\.(html|atom)\.\d+\.tmp|\.spare\.\d+\.tmp|\.(sitemap(-\d+)?\.xml|robots\.txt)\.\d+\.tmp/
        for name in others {
            #expect(name.wholeMatch(of: leftover) != nil, "unexpected file \(name)")
        }
        // Plus the spares the running server keeps to write pages over (32 at most).
        #expect(others.count <= users.count + 1 + 32, "\(others)")

        print("""
            crash recovery: \(totalAcknowledged) posts acknowledged before SIGKILL \
            (\(acknowledged.sorted { $0.key < $1.key }.map { "\($0.value.count)" }.joined(separator: "+"))), \
            \(inFlightCommitted) in-flight post(s) committed without a reply, \
            pages of \(check.rebuilt) of \(check.users) users rebuilt at restart, \
            \(pages.count) page files, \(others.count) leftover temp file(s)
            """)
    }

    @Test func damagedPagesAreRepairedAtStartAndByRebuild() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = ["dmgA": 23, "dmgB": 12, "dmgC": 4, "dmgD": 2, "dmgE": 1]
        let server = try serve()
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        for (user, count) in plan.sorted(by: { $0.key < $1.key }) {
            #expect(try exchange("register:\(user):pw[E];", port: port) == "reg:OK[E];")
            for n in 1...count {
                #expect(try exchange("newpost:\(user):\(user) \(n):text \(n)[E];", port: port) == "post:OK[E];")
            }
        }
        #expect(server.stop() == 0)

        let store = try SQLiteStore(path: db, create: false, readOnly: true)
        defer { try? store.close() }
        var posts: [String: [PostRecord]] = [:]
        for user in plan.keys { posts[user] = try self.posts(of: user, in: store) }
        func allCurrent() -> [String: Bool] {
            Dictionary(uniqueKeysWithValues: posts.map { user, list in
                (user, pagesAreCurrent(of: user, list))
            })
        }
        #expect(allCurrent().values.allSatisfy { $0 }, "before damage: \(allCurrent())")
        expectSameFiles(try checkPageFiles("before damage").pages, expectedPageFiles(plan), "before damage")

        let path = { (file: String) in self.publicFolder + "/" + file }
        func truncateToHalf(_ file: String) throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: path(file)))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path(file)))
        }
        func removeSecondPostLine(_ file: String) throws {
            let lines = try String(contentsOfFile: path(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let postLines = lines.indices.filter { lines[$0].hasPrefix("<article class=\"post h-entry\"") }
            try #require(postLines.count >= 2)
            var kept = lines
            kept.remove(at: postLines[1])
            try kept.joined(separator: "\n").write(toFile: path(file), atomically: false, encoding: .utf8)
        }

        // Damage while the server is stopped.
        try truncateToHalf("dmgA.html")                                           // cut short
        try "garbage \u{1}\u{2} not a page".write(toFile: path("dmgA.2.html"), atomically: false, encoding: .utf8) // archive replaced
        try FileManager.default.removeItem(atPath: path("dmgB.html"))             // deleted
        try removeSecondPostLine("dmgC.html")                                     // a post line gone
        try FileManager.default.copyItem(atPath: path("dmgD.html"), toPath: path("dmgD.1.html")) // stray archive
        let untouched = try #require(inode("dmgE.html"))
        #expect(allCurrent().filter { !$0.value }.keys.sorted() == ["dmgA", "dmgB", "dmgC", "dmgD"])

        let restarted = try serve()
        defer { restarted.ensureStopped() }
        _ = try restarted.waitForPort()
        let check = try #require(pageCheck(restarted.stderr), "\(restarted.stderr)")
        #expect(restarted.stop() == 0)
        #expect(check.users == 5)
        #expect(check.rebuilt == 4, "\(restarted.stderr)")
        #expect(allCurrent().values.allSatisfy { $0 }, "after restart: \(allCurrent())")
        for (user, list) in posts { try expectTitlesOnPages(of: user, list) }
        let (pages, others) = try checkPageFiles("after repair")
        expectSameFiles(pages, expectedPageFiles(plan), "after repair (the stray dmgD.1.html must be gone)")
        #expect(others.isEmpty, "\(others)")
        #expect(inode("dmgE.html") == untouched, "an intact page is left alone")

        // `blogd rebuild NAME` rewrites that user's pages (names in any case).
        try removeSecondPostLine("dmgC.html")
        let one = try rebuild(["DMGc"])
        #expect(one.status == 0, "\(one.err)")
        #expect(one.out == "rebuilt the pages of 1 user\n")
        #expect(allCurrent()["dmgC"] == true)
        #expect(inode("dmgE.html") == untouched)

        // An unknown name: exit 1, one line, and nothing rewritten.
        try removeSecondPostLine("dmgC.html")
        for names in [["nosuchuser"], ["dmgC", "nosuchuser"]] {
            let bad = try rebuild(names)
            #expect(bad.status == 1, "\(names)")
            let lines = bad.err.split(separator: "\n")
            #expect(lines.count == 1, "\(names): \(bad.err)")
            #expect(lines.first?.hasPrefix("blogd: ") == true, "\(bad.err)")
            #expect(bad.err.contains("nosuchuser"))
            #expect(bad.out.isEmpty)
        }
        #expect(allCurrent()["dmgC"] == false, "a failed rebuild must not touch the named users")

        // `blogd rebuild` with no names rewrites everyone's pages.
        try truncateToHalf("dmgA.html")
        try "x".write(toFile: path("dmgB.1.html"), atomically: false, encoding: .utf8)
        let all = try rebuild([])
        #expect(all.status == 0, "\(all.err)")
        #expect(all.out == "rebuilt the pages of 5 users\n")
        #expect(allCurrent().values.allSatisfy { $0 }, "after rebuild: \(allCurrent())")
        #expect(inode("dmgE.html") != untouched, "every page is rewritten")
        expectSameFiles(try checkPageFiles("after rebuild").pages, expectedPageFiles(plan), "after rebuild")
        print("page repair: \(check.rebuilt) of \(check.users) users' damaged pages rebuilt at start")
    }

    /// A SIGTERM as soon as the server says it listens (what a supervisor
    /// or a test does) must stop it gracefully, with exit 0 (README: SIGTERM stops
    /// accepting, finishes requests in flight, closes the database, exits 0).
    /// Each try stops at the first failure, so a lost signal costs one
    /// timeout, not twenty.
    @Test func sigtermRightAfterListeningStopsGracefully() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var failures: [String] = []
        for trial in 1...20 where failures.isEmpty {
            let server = try serve()
            defer { server.ensureStopped() }
            _ = try server.waitForPort(poll: 200)
            kill(server.pid, SIGTERM)
            switch server.waitForExit(timeout: 60) {
            case 0:
                continue
            case nil:
                failures.append("try \(trial): SIGTERM lost, still running 60 s later")
            case let status?:
                let how = server.process.terminationReason == .uncaughtSignal ? "killed by signal" : "exit"
                failures.append("try \(trial): \(how) \(status), not a graceful stop")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
