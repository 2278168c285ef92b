import Foundation
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogSQLite
@testable import BlogPages

/// What a restart must leave alone: files whose bytes are right already
/// (readers' conditional GETs find them unchanged), and the feeds' ids,
/// even when the blog has moved to another address.
@Suite("Restart stability")
struct RestartStabilityTests {
    /// A service over the database and public folder in `folder`, as
    /// `blogd` makes one at each start.
    static func service(in folder: URL, baseURL: String, pinned: Bool = true) throws -> (SQLiteStore, BlogService) {
        let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
        var settings = BlogService.Settings(openPosting: true, scrypt: .testing, baseURL: baseURL)
        if pinned { settings.feedIDBase = try Feeds.idBase(storage: store, baseURL: baseURL) }
        let service = try BlogService(store: store, pages: PublicFolder(folder: folder.appendingPathComponent("public")),
                                      settings: settings, logger: quietLogger)
        return (store, service)
    }

    /// Inode and modification time, to the nanosecond.
    static func identity(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int(info.st_ino), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
    }

    @Test func startUpCheckLeavesRightFilesAlone() throws {
        try withTemporaryFolder { (folder: URL) throws in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: false)
            let (store, service) = try Self.service(in: folder, baseURL: "https://blog.example.org/")
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
            #expect(service.handle(message: Array("newpost:alice:Hello:First".utf8), session: &session).reply == .posted)
            #expect(service.handle(message: Array("newpost:alice:Again:Second".utf8), session: &session).reply == .posted)
            _ = try service.repairPages()
            let alice = try #require(try store.user(named: "alice"))
            let post = try #require(try store.posts(ofUserID: alice.id).first)
            let files = ["index.html", "index.atom", "alice.html", "alice.atom", "alice/\(post.id).html"]
                .map { folder.appendingPathComponent("public/" + $0).path }
            let before = files.map(Self.identity)
            #expect(before.allSatisfy { !$0.isEmpty })
            // A stop writes the index; the next start checks every page.
            service.writeIndex()
            service.pages.removeSpares()
            try store.close()
            let (again, restarted) = try Self.service(in: folder, baseURL: "https://blog.example.org/")
            defer { try? again.close() }
            let report = try restarted.repairPages()
            #expect(report.rebuilt.isEmpty)
            #expect(files.map(Self.identity) == before)
        }
    }

    /// RFC 4287 4.2.6: moving the blog to another address changes its
    /// links, not its ids; a database that made ids before they were kept
    /// keeps the ids it made (of its base URL then).
    @Test func feedIdsSurviveAMove() throws {
        try withTemporaryFolder { (folder: URL) throws in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: false)
            let feed = folder.appendingPathComponent("public/alice.atom").path
            let site = folder.appendingPathComponent("public/index.atom").path
            func ids(_ path: String) throws -> [String] {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                return text.matches(of: /<id>([^<]*)<\/id>/).map { String($0.1) }
            }
            let (store, service) = try Self.service(in: folder, baseURL: "https://old.example.org/blog/")
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
            #expect(service.handle(message: Array("newpost:alice:Hello:First".utf8), session: &session).reply == .posted)
            service.writeIndex()
            let before = try ids(feed), siteBefore = try ids(site)
            #expect(before.count == 2 && before[0] == "https://old.example.org/blog/alice.atom")
            #expect(before[1].hasPrefix("tag:old.example.org,"))
            try store.close()

            let (moved, restarted) = try Self.service(in: folder, baseURL: "https://new.example.net/")
            defer { try? moved.close() }
            _ = try restarted.repairPages()
            #expect(try ids(feed) == before)
            #expect(try ids(site) == siteBefore)
            let text = try String(contentsOfFile: feed, encoding: .utf8)
            #expect(text.contains("href=\"https://new.example.net/alice.atom\""), "links follow the move")
            #expect(!text.contains("href=\"https://old.example.org"))
        }
    }
}
