import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real binary federating with bovine-herd (an independent ActivityPub
/// server, its own signature library) on loopback: the herd's actor
/// follows alice by `acct:alice@127.0.0.1:PORT`; blogd verifies the Follow
/// (fetching the herd's key with a signed GET), keeps the follower and
/// sends a signed Accept the herd takes; a post over the blog protocol
/// reaches the herd's inbox as a Create, an edit as an Update, a deletion
/// as a Delete, each checked by bovine. Skipped with one line without
/// bovine-herd (docs/testing-fediverse.md), failed then under
/// `BLOGD_REQUIRE_PY_TOOLS=1`.
@Suite("ActivityPub with bovine-herd (real binary)", .serialized)
struct ActivityPubHerdTests {
    @Test func theHerdFollowsAliceAndReceivesHerPosts() throws {
        let python: String
        switch Herd.find() {
        case .found(let found): python = found
        case .missing(let line):
            try #require(!Herd.required, "\(line)")
            print(line)
            return
        }
        try withTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            let data = ["--db", folder.appendingPathComponent("blog.sqlite").path,
                        "--public", folder.appendingPathComponent("public").path]
            // The base URL must carry the port the herd reaches, so the web
            // port is chosen before the start (the one test that needs it).
            let http = try Self.unusedPort()
            let base = "http://127.0.0.1:\(http)/"
            let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": base,
                               "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]
            let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", String(http)] + data,
                                          environment: environment)
            defer { _ = server.stop() }
            let port = try server.waitForPort()
            #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
            let alice = base + "ap/alice"

            // The herd keeps a failed key fetch for good: alice's actor
            // (and so her key) must answer before anything signed reaches it.
            #expect(waitUntil(timeout: 60) {
                (try? tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Accept: application/activity+json",
                                    alice]).output) == "200"
            })

            let herd = try Herd(python: python, folder: folder.appendingPathComponent("herd"))
            defer { herd.stop() }
            let followID = try herd.follow("acct:alice@127.0.0.1:\(http)")
            #expect(followID.hasPrefix(herd.url + "/objects/"))
            // The Accept arrived and the herd took it.
            #expect(waitUntil(timeout: 120) { (try? herd.following())?.contains("\"\(alice)\"") == true },
                    "herd following: \((try? herd.following()) ?? []) blogd: \(server.stderr)")
            let followers = try tool("curl", ["-s", "-H", "Accept: application/activity+json", alice + "/followers"]).output
            #expect(followers.contains("\"totalItems\":1"), "\(followers)")

            #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
            #expect(try exchange("newpost:alice:Hello herd:From blogd to the fediverse[E];", port: port) == "post:OK[E];")
            let listing = try exchange("posts:alice[E];", port: port)
            let id = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first.map(String.init))
            let object = "\(alice)/posts/\(id)"
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(object)#create\"") } },
                    "herd inbox: \((try? herd.inbox()) ?? []) blogd: \(server.stderr)")
            #expect(waitUntil(timeout: 120) { (try? herd.object(object))?.contains("From blogd to the fediverse") == true })

            #expect(try exchange("editpost:alice:\(id):Hello herd:Edited on blogd[E];", port: port) == "edit:OK[E];")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(object)#update-") } },
                    "herd inbox: \((try? herd.inbox()) ?? [])")
            #expect(waitUntil(timeout: 120) { (try? herd.object(object))?.contains("Edited on blogd") == true },
                    "herd object: \((try? herd.object(object)) ?? "")")

            #expect(try exchange("delpost:alice:\(id)[E];", port: port) == "del:OK[E];")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(object)#delete\"") } },
                    "herd inbox: \((try? herd.inbox()) ?? [])")
            #expect(waitUntil(timeout: 120) { (try? herd.object(object))?.contains("\"Tombstone\"") == true },
                    "herd object: \((try? herd.object(object)) ?? "")")
        }
    }

    /// The inbox on the real binary, before any herd: an unsigned Follow is
    /// `401` and changes nothing, and the address's budget comes from
    /// `inbox_rate`/`inbox_burst`: past it, `429` before the body is read.
    @Test func theInboxRefusesUnsignedFollowsAndFloods() throws {
        try withTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            let data = ["--db", folder.appendingPathComponent("blog.sqlite").path,
                        "--public", folder.appendingPathComponent("public").path]
            let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "http://blog.test/",
                               "BLOGD_INBOX_RATE": "0", "BLOGD_INBOX_BURST": "2"]
            let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data,
                                          environment: environment)
            defer { _ = server.stop() }
            _ = try server.waitForPort()
            let line = try #require(server.stderr.range(of: #"http on \S+:(\d+)"#, options: .regularExpression))
            let http = Int(server.stderr[line].split(separator: ":").last!)!
            #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
            let follow = #"{"@context":"https://www.w3.org/ns/activitystreams","id":"http://social.test/f/1","type":"Follow","actor":"http://social.test/users/bob","object":"http://blog.test/ap/alice"}"#
            let statuses = try (0..<3).map { _ in
                try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/activity+json",
                                  "--data-binary", follow, "http://127.0.0.1:\(http)/ap/alice/inbox"]).output
            }
            #expect(statuses == ["401", "401", "429"])
            let followers = try tool("curl", ["-s", "-H", "Accept: application/activity+json",
                                              "http://127.0.0.1:\(http)/ap/alice/followers"]).output
            #expect(followers.contains("\"totalItems\":0"), "\(followers)")
        }
    }

    /// A loopback port nobody listens on now: bound, read, closed.
    static func unusedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
