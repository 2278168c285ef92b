import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// The real binary on a PostgreSQL server of its own that goes away while
/// clients post: every request is answered within the storage deadline,
/// `/healthz` says 503 and then 200, blogd serves again by itself, and
/// every reply tells the truth (a `post:OK` is stored and on the page, a
/// `post:ERR` is not, once the posts whose commit was not heard are
/// settled).
@Suite(.serialized, .enabled(if: PostgresCluster.enabled))
struct DatabaseOutageTests {
    /// Seconds a storage call may take, here.
    static let deadline = 2.0
    /// What a reply may take past the deadline on a loaded machine: far
    /// less than the 17 s and more (or never) of a call without one.
    static let margin = 6.0
    /// Seconds the database is away.
    static let outage = 15.0

    let folder: URL
    var publicFolder: String { folder.appendingPathComponent("public").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-outage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    /// The posting clients' users, registered by `startBlogd`.
    let users = ["ann", "bob", "cid", "dee"]

    func startBlogd(_ cluster: PostgresCluster) throws -> (BlogdProcess, port: Int, http: Int) {
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0", "--db", try cluster.makeDatabase(),
             "--public", publicFolder],
            environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_STORAGE_DEADLINE": "\(Self.deadline)"])
        let port = try server.waitForPort()
        let http = try server.waitForHTTPPort()
        for user in users {
            #expect(try exchange("register:\(user):pw[E];", port: port) == "reg:OK[E];")
        }
        return (server, port, http)
    }

    /// One reply and how long it took.
    struct Sent: Sendable {
        var title: String
        var reply: String
        var seconds: Double
    }

    /// Posts as `users` (one thread each, a connection a post) until `stop`.
    final class Posters: Sendable {
        let sent = Mutex<[Sent]>([])
        let stopped = Atomic<Bool>(false)
        private let done = DispatchGroup()

        init(users: [String], port: Int) {
            for user in users {
                done.enter()
                Thread { [self] in
                    var index = 0
                    while !stopped.load(ordering: .relaxed) {
                        index += 1
                        let title = "\(user)-\(index)"
                        let start = Date()
                        let reply = (try? exchange("newpost:\(user):\(title):text of \(title)[E];", port: port)) ?? "(no reply)"
                        sent.withLock { $0.append(Sent(title: title, reply: reply, seconds: Date().timeIntervalSince(start))) }
                    }
                    done.leave()
                }.start()
            }
        }

        var count: Int { sent.withLock { $0.count } }

        func replies(_ reply: String) -> Int { sent.withLock { $0.filter { $0.reply == reply }.count } }

        func stop() -> [Sent] {
            stopped.store(true, ordering: .relaxed)
            done.wait()
            return sent.withLock { $0 }
        }
    }

    static func health(_ http: Int) -> (status: Int, seconds: Double) {
        let start = Date()
        let status = (try? httpRequest(port: http, path: "/healthz").status) ?? 0
        return (status, Date().timeIntervalSince(start))
    }


    @Test func postgresGoingAwayIsAnsweredInTimeAndTruthfully() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = try PostgresCluster.throwAway()
        let (server, port, http) = try startBlogd(cluster)
        defer { server.ensureStopped() }
        #expect(Self.health(http).status == 200)

        let posters = Posters(users: users, port: port)
        #expect(waitUntil(timeout: 60) { posters.replies("post:OK[E];") >= 20 })
        let outageStart = Date()
        try cluster.stop()
        // 503 within a second of asking, once the database is gone.
        var sick: (status: Int, seconds: Double) = (0, 0)
        #expect(waitUntil(timeout: 60) {
            sick = Self.health(http)
            return sick.status == 503
        })
        #expect(sick.seconds < 1 + Self.margin, "healthz took \(sick.seconds) s")
        let failedBefore = posters.replies("post:ERR[E];")
        #expect(waitUntil(timeout: 60) { posters.replies("post:ERR[E];") >= failedBefore + 8 }, "posts fail, they do not hang")
        // The outage lasts 15 s in all: every client keeps being answered.
        usleep(UInt32(max(0, Self.outage - Date().timeIntervalSince(outageStart)) * 1_000_000))
        try cluster.start()
        let restarted = Date()
        let okBefore = posters.replies("post:OK[E];")
        #expect(waitUntil(timeout: 120) { posters.replies("post:OK[E];") > okBefore + 4 }, "serving again by itself")
        let recovery = Date().timeIntervalSince(restarted)
        #expect(waitUntil(timeout: 60) { Self.health(http).status == 200 })
        let sent = posters.stop()

        // Every post answered failed and held by the database is settled.
        #expect(waitUntil(timeout: 120) {
            let stderr = server.stderr
            return stderr.components(separatedBy: "post to be taken back").count
                == stderr.components(separatedBy: "post taken back").count
                   + stderr.components(separatedBy: "post settled: never stored").count - 1
        }, "\(server.stderr)")
        let slowest = sent.map(\.seconds).max() ?? 0
        print("outage of \(Int(Self.outage)) s: \(sent.count) posts, \(sent.filter { $0.reply == "post:OK[E];" }.count) ok, "
              + "\(sent.filter { $0.reply == "post:ERR[E];" }.count) failed, slowest reply \(String(format: "%.2f", slowest)) s, "
              + "serving again \(String(format: "%.2f", recovery)) s after the restart, healthz 503 in \(String(format: "%.2f", sick.seconds)) s")
        #expect(slowest < Self.deadline + Self.margin)
        #expect(sent.allSatisfy { $0.reply == "post:OK[E];" || $0.reply == "post:ERR[E];" }, "\(Set(sent.map(\.reply)))")

        let stored = Set(try cluster.psql(database: PostgresCluster.databaseName(try databaseURL(server)),
                                          "SELECT title FROM posts").split(separator: "\n").map(String.init))
        let pages = try FileManager.default.contentsOfDirectory(atPath: publicFolder)
            .filter { $0.hasSuffix(".html") }
            .map { try String(contentsOfFile: publicFolder + "/" + $0, encoding: .utf8) }
            .joined()
        for post in sent where post.reply == "post:OK[E];" {
            #expect(stored.contains(post.title), "post:OK but not stored: \(post.title)")
            #expect(pages.contains("\">\(post.title)</a></h2>"), "post:OK but not on a page: \(post.title)")
        }
        for post in sent where post.reply == "post:ERR[E];" {
            #expect(!stored.contains(post.title), "post:ERR but stored: \(post.title)")
            #expect(!pages.contains("\">\(post.title)</a></h2>"), "post:ERR but on a page: \(post.title)")
        }
        #expect(server.stop() == 0)
    }

    /// The first SIGTERM stops blogd within seconds while the database is
    /// gone and posts wait on it.
    @Test func sigtermDuringAnOutageStopsWithinSeconds() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = try PostgresCluster.throwAway()
        let (server, port, _) = try startBlogd(cluster)
        defer { server.ensureStopped() }
        try cluster.stop()
        let posters = Posters(users: users, port: port)
        #expect(waitUntil(timeout: 60) { posters.count >= 4 })
        let start = Date()
        let status = server.stop(timeout: 60)
        let took = Date().timeIntervalSince(start)
        _ = posters.stop()
        print("SIGTERM during a database outage: exit \(status.map(String.init) ?? "none") after \(String(format: "%.2f", took)) s")
        #expect(status == 0)
        #expect(took < Self.deadline + Self.margin)
    }

    /// The database URL blogd was started with (its name is in the log).
    func databaseURL(_ server: BlogdProcess) throws -> String {
        try #require(server.process.arguments?.first { $0.hasPrefix("postgres://") })
    }
}
