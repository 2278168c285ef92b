import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// Several real `blogd` on one PostgreSQL database and one public folder,
/// as behind a load balancer: posts of one user through different
/// instances at once, an instance killed under load, and HAProxy in front.
@Suite(.serialized, .enabled(if: PostgresCluster.enabled))
struct SeveralInstancesTests {
    let folder: URL
    /// Cheap scrypt (hashing is not what these test); archive pages of 5
    /// posts, so that instances close page groups for each other.
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_PAGE_SIZE": "5"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-several-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var publicFolder: String { folder.appendingPathComponent("public").path }

    func startInstances(_ count: Int, database: String, extra: [String: String] = [:]) throws -> [(BlogdProcess, Int)] {
        try (0..<count).map { _ in
            let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", database,
                                           "--public", publicFolder],
                                          environment: environment.merging(extra) { $1 })
            return (server, try server.waitForPort())
        }
    }

    /// The posts on the pages of `user`, newest first across the main page
    /// and its archives: (post id, title).
    func postsOnPages(of user: String, in folder: String) throws -> [(id: Int, title: String)] {
        var files = [folder + "/\(user).html"]
        var number = 1
        var archives: [String] = []
        while FileManager.default.fileExists(atPath: folder + "/\(user).\(number).html") {
            archives.append(folder + "/\(user).\(number).html")
            number += 1
        }
        files += archives.reversed()
        var posts: [(id: Int, title: String)] = []
        for file in files {
            let page = try String(contentsOfFile: file, encoding: .utf8)
            for match in page.matches(of: /<article class="post h-entry" id="post-(\d+)"><h2 class="p-name"><a class="u-url" href="[^"]*">([^<]*)<\/a><\/h2>/) {
                posts.append((Int(match.output.1)!, String(match.output.2)))
            }
        }
        return posts
    }

    /// Every page file of the public folder and its bytes.
    func pages(in folder: String) throws -> [String: Data] {
        var pages: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".html") && name != "index.html" {
            pages[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return pages
    }

    @Test(arguments: [2, 3])
    func postsOfOneUserThroughSeveralInstancesLandOnceInOrder(instances: Int) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try PostgresCluster.shared().makeDatabase()
        let servers = try startInstances(instances, database: database)
        defer { servers.forEach { $0.0.ensureStopped() } }
        #expect(try exchange("register:alice:pw[E];", port: servers[0].1) == "reg:OK[E];")

        // Six clients, each through its own instance in turn, post at once.
        let clients = 6, perClient = 15
        let acknowledged = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            for index in 0..<perClient {
                let port = servers[(client + index) % instances].1
                let title = "c\(client)-\(index)"
                do {
                    let reply = try exchange("newpost:alice:\(title):from client \(client)[E];", port: port)
                    if reply == "post:OK[E];" { acknowledged.withLock { $0.append(title) } }
                    else { failures.withLock { $0.append("\(title): \(reply)") } }
                } catch {
                    failures.withLock { $0.append("\(title): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count == clients * perClient)

        // Every acknowledged post on the pages exactly once, newest first,
        // and each client's posts in the order it sent them.
        let shown = try postsOnPages(of: "alice", in: publicFolder)
        #expect(shown.map(\.title).sorted() == acked.sorted())
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.id > $1.id }, "newest first across every page")
        for client in 0..<clients {
            let mine = shown.filter { $0.title.hasPrefix("c\(client)-") }.reversed().map(\.title)
            #expect(mine == (0..<perClient).map { "c\(client)-\($0)" })
        }

        // And the pages are what a rebuild from the database writes.
        for (server, _) in servers { #expect(server.stop() == 0) }
        let rebuilt = folder.appendingPathComponent("rebuilt").path
        try FileManager.default.createDirectory(atPath: rebuilt, withIntermediateDirectories: true)
        let rebuild = try runBlogd(["rebuild", "--db", database, "--public", rebuilt], environment: environment)
        #expect(rebuild.status == 0, "\(rebuild.err)")
        #expect(try pages(in: rebuilt) == pages(in: publicFolder))
    }

    @Test func killingOneInstanceUnderLoadLosesNothingAcknowledged() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try PostgresCluster.shared().makeDatabase()
        let servers = try startInstances(3, database: database)
        defer { servers.forEach { $0.0.ensureStopped() } }
        #expect(try exchange("register:bob:pw[E];", port: servers[0].1) == "reg:OK[E];")

        // Three clients per instance post until told to stop; those of the
        // killed instance stop at their first failure.
        let acknowledged = Mutex<[String]>([])
        let survivorFailures = Mutex<[String]>([])
        let stop = Atomic(false)
        let done = DispatchGroup()
        for client in 0..<9 {
            let instance = client % 3
            DispatchQueue.global().async(group: done) {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    let title = "k\(client)-\(index)"
                    let reply = try? exchange("newpost:bob:\(title):x[E];", port: servers[instance].1)
                    if reply == "post:OK[E];" {
                        acknowledged.withLock { $0.append(title) }
                    } else if instance == 1 {
                        return
                    } else {
                        survivorFailures.withLock { $0.append("\(title): \(reply ?? "no reply")") }
                    }
                    index += 1
                }
            }
        }
        func waitForAcks(_ count: Int) -> Bool {
            servers[0].0.waitUntil(timeout: 120) { acknowledged.withLock { $0.count } >= count }
        }
        #expect(waitForAcks(60))
        servers[1].0.crash()
        let atKill = acknowledged.withLock { $0.count }
        #expect(waitForAcks(atKill + 60), "the others keep serving")
        stop.store(true, ordering: .relaxed)
        #expect(done.wait(timeout: .now() + 120) == .success)
        #expect(survivorFailures.withLock { $0 }.isEmpty, "\(survivorFailures.withLock { $0 })")

        // Everything acknowledged, by any instance, is on the pages once.
        let acked = Set(acknowledged.withLock { $0 })
        let shown = try postsOnPages(of: "bob", in: publicFolder)
        let counts = Dictionary(grouping: shown.map(\.title)) { $0 }.mapValues(\.count)
        #expect(acked.allSatisfy { counts[$0] == 1 }, "missing or doubled: \(acked.filter { counts[$0] != 1 }.sorted())")
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.id > $1.id })
        // A post in flight at the kill may be stored without its OK: at most
        // one per client of the killed instance.
        #expect(shown.count - acked.count <= 3)
    }

    @Test(.enabled(if: HAProxyProcess.available))
    func aLoginThroughTheBalancerCountsForItsOwnAddressOnly() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try PostgresCluster.shared().makeDatabase()
        let servers = try startInstances(2, database: database,
                                         extra: ["BLOGD_PROXY_PROTOCOL": "true", "BLOGD_TRUSTED_PROXIES": "127.0.0.1"])
        defer { servers.forEach { $0.0.ensureStopped() } }
        let balancer = try HAProxyProcess(backends: servers.map(\.1))
        // Round robin: consecutive connections go to different instances,
        // so the lease granted through one is used through the other.
        #expect(try exchange("register:carol:pw[E];", port: balancer.port, from: "127.0.0.2") == "reg:OK[E];")
        #expect(try exchange("login:carol:pw[E];", port: balancer.port, from: "127.0.0.2") == "log:OK[E];")
        for round in 0..<4 {
            #expect(try exchange("newpost:carol:mine \(round):x[E];", port: balancer.port, from: "127.0.0.2") == "post:OK[E];")
            #expect(try exchange("newpost:carol:forged \(round):x[E];", port: balancer.port, from: "127.0.0.3") == "post:NA[E];")
        }
        let shown = try postsOnPages(of: "carol", in: publicFolder).map(\.title)
        #expect(shown == ["mine 3", "mine 2", "mine 1", "mine 0"])
        let served = servers.map { $0.0.requestLines.filter { $0.contains("command=newpost") }.count }
        #expect(served.allSatisfy { $0 > 0 }, "both instances took posts: \(served)")
    }
}
