import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// The public folder as another web server would publish it (every file,
/// hidden ones included), with the real `blogd`: only pages, never a
/// page write's temporary file or a kept old page, nothing of a deleted
/// post; files a restart finds right are left alone; feed ids survive a
/// move of the blog.
@Suite(.serialized)
struct PublicTreeTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-tree-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var publicPath: String { folder.appendingPathComponent("public").path }
    var stagingPath: String { folder.appendingPathComponent(".public.blogd-staging").path }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", publicPath] }

    func serve(_ extra: [String: String] = [:]) throws -> (BlogdProcess, Int) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data,
                                      environment: environment.merging(extra) { $1 })
        return (server, try server.waitForPort())
    }

    /// Every name under the public folder, hidden ones included.
    func names() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: publicPath) else { return [] }
        var names: [String] = []
        while let name = walker.nextObject() as? String { names.append(name) }
        return names
    }

    /// Every file under the public folder, with its text.
    func files() -> [(name: String, text: String)] {
        names().compactMap { name in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: publicPath + "/" + name, isDirectory: &isFolder), !isFolder.boolValue,
                  let data = FileManager.default.contents(atPath: publicPath + "/" + name) else { return nil }
            return (name, String(decoding: data, as: UTF8.self))
        }
    }

    static func isTemporary(_ name: String) -> Bool {
        name.split(separator: "/").contains { $0.hasPrefix(".") } || name.hasSuffix(".tmp")
    }

    func postIDs(_ user: String, port: Int) throws -> [String] {
        let listing = try exchange("posts:\(user)[E];", port: port)
        return listing.split(separator: "\n").dropFirst().compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    @Test func deletedTextLeavesThePublicTreeAndNoTemporaryIsEverListed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try serve()
        defer { _ = server.stop() }
        let users = ["alice", "bob", "carol", "dave"]
        for user in users {
            #expect(try exchange("register:\(user):pw[E];", port: port) == "reg:OK[E];")
            #expect(try exchange("login:\(user):pw[E];", port: port) == "log:OK[E];")
        }
        // Many posts at once, while a reader lists the folder again and again.
        let writing = Atomic<Bool>(true)
        let seen = Collector<String>()
        let listings = Atomic<Int>(0)
        let watcher = Thread { [self] in
            while writing.load(ordering: .acquiring) {
                for name in names() where Self.isTemporary(name) { seen.append(name) }
                listings.add(1, ordering: .relaxed)
            }
        }
        watcher.start()
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: users.count) { index in
            for round in 1...20 {
                let reply = (try? exchange("newpost:\(users[index]):Title-\(users[index])-\(round):Secret-\(users[index])-\(round)[E];",
                                           port: port)) ?? "no reply"
                if reply != "post:OK[E];" { failures.append(reply) }
            }
        }
        let after = listings.load(ordering: .relaxed)
        while listings.load(ordering: .relaxed) < after + 2 { sched_yield() }
        writing.store(false, ordering: .releasing)
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        #expect(seen.all.isEmpty, "\(Set(seen.all).sorted().prefix(5))")

        // Edits, then a deletion each way: the protocol, the admin's
        // delete-post and delete-user.
        let alice = try postIDs("alice", port: port), carol = try postIDs("carol", port: port)
        #expect(alice.count == 20 && carol.count == 20)
        #expect(try exchange("editpost:alice:\(alice[0]):Edited:Edited text[E];", port: port) == "edit:OK[E];")
        #expect(try exchange("editpost:carol:\(carol[1]):Edited:Edited text[E];", port: port) == "edit:OK[E];")
        // alice's newest (on every page and feed) and carol's second newest.
        #expect(try exchange("delpost:alice:\(alice[1])[E];", port: port) == "del:OK[E];")
        let deletedPost = try runBlogd(["delete-post", carol[2]] + data, environment: environment)
        #expect(deletedPost.status == 0, "\(deletedPost.err)")
        let deletedUser = try runBlogd(["delete-user", "bob"] + data, environment: environment)
        #expect(deletedUser.status == 0, "\(deletedUser.err)")
        let gone = ["Secret-alice-19", "Title-alice-19", "Secret-carol-18", "Title-carol-18", "Secret-bob-", "Title-bob-"]
        // The index and the site feed follow within a second or so.
        #expect(waitUntil(timeout: 60) { files().allSatisfy { file in !gone.contains { file.text.contains($0) } } },
                "\(files().filter { file in gone.contains { file.text.contains($0) } }.map(\.name))")
        #expect(files().contains { $0.text.contains("Secret-alice-18") }, "the others stay")
        #expect(names().filter(Self.isTemporary) == [])

        #expect(server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: stagingPath), "removed at the stop")

        // A start that fails (its port is taken), whether or not its page
        // check wrote a page first, leaves nothing behind either.
        try FileManager.default.removeItem(atPath: publicPath + "/alice.html")
        let holder = try Self.listeningSocket()
        defer { close(holder.fd) }
        let failed = try runBlogd(["serve", "--host", "127.0.0.1", "--port", String(holder.port)] + data,
                                  environment: environment)
        #expect(failed.status != 0)
        #expect(names().filter(Self.isTemporary) == [])
        #expect(!FileManager.default.fileExists(atPath: stagingPath))
    }

    /// An admin command writes what its change touches before it exits
    /// (the sitemap, which it wrote in the background, was lost at the
    /// exit or written after the database closed) and leaves no old page
    /// of its own in the staging folder.
    @Test func anAdminCommandFinishesItsWritesAndLeavesNoSpare() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try serve()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        for round in 1...3 {
            #expect(try exchange("newpost:alice:Title-\(round):Text-\(round)[E];", port: port) == "post:OK[E];")
        }
        let ids = try postIDs("alice", port: port)
        #expect(server.stop() == 0)
        func sitemap() -> String {
            String(decoding: FileManager.default.contents(atPath: publicPath + "/sitemap.xml") ?? Data(), as: UTF8.self)
        }
        let page = "alice/\(ids[0]).html"
        #expect(sitemap().contains(page))
        #expect(!FileManager.default.fileExists(atPath: stagingPath))

        let deleted = try runBlogd(["delete-post", ids[0]] + data, environment: environment)
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(!deleted.err.contains("not written"), "\(deleted.err)")
        #expect(!sitemap().contains(page), "the sitemap was written before the command ended")
        #expect(!FileManager.default.fileExists(atPath: stagingPath), "no spare left behind")
        #expect(names().filter(Self.isTemporary) == [])
    }

    /// A second start finds every file right: index.html, index.atom, a
    /// blog's page, its feed and a post's page keep their inode and time.
    /// Moved to another address, the feeds' links follow and their ids do
    /// not, and the feeds still validate.
    @Test func restartsLeaveRightFilesAloneAndIdsSurviveAMove() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = ["BLOGD_BASE_URL": "https://old.example.org/blog/"]
        var (server, port) = try serve(old)
        defer { _ = server.stop() }
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:Hello:First[E];", port: port) == "post:OK[E];")
        let id = try #require(try postIDs("alice", port: port).first)
        #expect(server.stop() == 0)
        let watched = ["index.html", "index.atom", "alice.html", "alice.atom", "alice/\(id).html"].map { publicPath + "/" + $0 }
        func identity(_ path: String) -> [Int] {
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int(info.st_ino), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
        let before = watched.map(identity)
        #expect(before.allSatisfy { !$0.isEmpty })
        (server, port) = try serve(old)
        #expect(server.stop() == 0)
        #expect(watched.map(identity) == before, "a restart rewrote a file that was right")

        func ids(_ name: String) throws -> [String] {
            try String(contentsOfFile: publicPath + "/" + name, encoding: .utf8)
                .matches(of: /<id>([^<]*)<\/id>/).map { String($0.1) }
        }
        let feedIDs = try ids("alice.atom"), siteIDs = try ids("index.atom")
        #expect(feedIDs.first == "https://old.example.org/blog/alice.atom")
        #expect(feedIDs.last?.hasPrefix("tag:old.example.org,") == true)
        (server, port) = try serve(["BLOGD_BASE_URL": "https://new.example.net/"])
        #expect(server.stop() == 0)
        #expect(try ids("alice.atom") == feedIDs)
        #expect(try ids("index.atom") == siteIDs)
        let feed = try String(contentsOfFile: publicPath + "/alice.atom", encoding: .utf8)
        #expect(feed.contains("href=\"https://new.example.net/alice/\(id).html\""), "links follow the move")

        switch FeedTools.find() {
        case .found(let tools):
            let checked = try tools.check([publicPath + "/alice.atom", publicPath + "/index.atom"])
            #expect(checked.status == 0, "\(checked.output)")
        case .missing(let line):
            if FeedTools.required { Issue.record(Comment(rawValue: line)) } else { print(line) }
        }
    }

    /// A socket listening on a free loopback port.
    static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0
                && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
