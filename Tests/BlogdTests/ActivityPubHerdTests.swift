import BlogModel
import BlogSQLite
import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real binary federating with bovine-herd (an independent ActivityPub
/// server, its own signature library) on loopback. Two of the herd's
/// actors follow alice (`acct:alice@127.0.0.1:PORT`, WebFinger read by
/// bovine); blogd verifies each Follow (fetching the herd's key with a
/// signed GET), keeps the follower and sends a signed Accept the herd
/// takes; a post over the blog protocol reaches the herd as a Create, an
/// edit as an Update, a deletion as a Delete, each checked by bovine. The
/// herd replies to a post (pending, approved with `blogd webmentions
/// approve`, then on the post's page) and likes it (counted on the page);
/// it undoes its Follow (a later post goes to the other actor only); and
/// once alice blocks it, its Follow, reply and Like are refused with `403`
/// and change nothing. What Mastodon documents it requires of a sender
/// (docs.joinmastodon.org/spec/security) is checked on the wire, as the
/// herd saw blogd's requests. Skipped with one line without bovine-herd
/// (docs/testing-fediverse.md), failed then under `BLOGD_REQUIRE_PY_TOOLS=1`.
@Suite("ActivityPub with bovine-herd (real binary)", .serialized)
struct ActivityPubHerdTests {
    @Test func theHerdFollowsRepliesLikesUnfollowsAndIsBlocked() throws {
        let python: String
        switch Herd.find() {
        case .found(let found): python = found
        case .missing(let line):
            try #require(!Herd.required, "\(line)")
            print(line)
            return
        }
        try withTemporaryFolder { folder in
            let blog = try HerdBlog(folder: folder)
            defer { blog.stop() }
            let alice = blog.alice

            try Self.expectMastodonsWebFinger(blog)
            let herd = try Herd(python: python, folder: folder.appendingPathComponent("herd"), actors: ["herd", "herd2"])
            defer { herd.stop() }
            #expect(herd.actors.keys.sorted() == ["herd", "herd2"])
            let followID = try herd.follow("acct:alice@127.0.0.1:\(blog.http)")
            #expect(followID.hasPrefix(herd.url + "/objects/"))
            try herd.follow("acct:alice@127.0.0.1:\(blog.http)", as: "herd2")
            // The Accepts arrived and the herd took them.
            for actor in ["herd", "herd2"] {
                #expect(waitUntil(timeout: 120) { (try? herd.following(of: actor))?.contains("\"\(alice)\"") == true },
                        "\(actor) following: \((try? herd.following(of: actor)) ?? []) blogd: \(blog.server.stderr)")
            }
            #expect(try blog.followerCount() == 2)

            // A post, its edit and its deletion, as the herd has them.
            let first = try blog.post("Hello herd", "From blogd to the fediverse")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(first)#create\"") } },
                    "herd inbox: \((try? herd.inbox()) ?? []) blogd: \(blog.server.stderr)")
            #expect(waitUntil(timeout: 120) { (try? herd.object(first))?.contains("From blogd to the fediverse") == true })
            #expect(try blog.send("editpost:alice:\(blog.id(of: first)):Hello herd:Edited on blogd[E];") == "edit:OK[E];")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(first)#update-") } },
                    "herd inbox: \((try? herd.inbox()) ?? [])")
            #expect(waitUntil(timeout: 120) { (try? herd.object(first))?.contains("Edited on blogd") == true },
                    "herd object: \((try? herd.object(first)) ?? "")")
            #expect(try blog.send("delpost:alice:\(blog.id(of: first))[E];") == "del:OK[E];")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(first)#delete\"") } },
                    "herd inbox: \((try? herd.inbox()) ?? [])")
            #expect(waitUntil(timeout: 120) { (try? herd.object(first))?.contains("\"Tombstone\"") == true },
                    "herd object: \((try? herd.object(first)) ?? "")")
            Self.expectMastodonsSignatures(herd.requests.filter { $0.keyID == alice + "#main-key" })

            // A reply waits for the author, then shows on the post's page.
            let second = try blog.post("Reply here", "Tell me what you think")
            #expect(waitUntil(timeout: 120) { ((try? herd.inbox()) ?? []).contains { $0.contains("\"\(second)#create\"") } })
            try herd.reply(to: second, content: "<p>A reply from the herd</p>")
            #expect(waitUntil(timeout: 120) { (try? blog.responses(pending: true))?.count == 1 },
                    "blogd: \(blog.server.stderr) herd: \(herd.stderr)")
            let pending = try #require(try blog.responses(pending: true).first)
            #expect(pending.state == "pending" && pending.kind == "reply" && pending.postID == blog.id(of: second), "\(pending)")
            #expect(try !blog.page(of: second).contains("A reply from the herd"), "not shown before approval")
            let approved = try runBlogd(["webmentions", "approve", pending.id] + blog.data, environment: blog.environment)
            #expect(approved.status == 0, "\(approved.err)")
            let page = try blog.page(of: second)
            #expect(page.contains("A reply from the herd") && page.contains("<span class=\"reply-count\">1 reply</span>"),
                    "\(page)")

            // A like is counted at once.
            try herd.like(second)
            #expect(waitUntil(timeout: 120) {
                (try? blog.page(of: second))?.contains("<span class=\"like-count\">1 like</span>") == true
            }, "page: \((try? blog.page(of: second)) ?? "") blogd: \(blog.server.stderr) herd: \(herd.stderr)")
            #expect(try blog.responses().map(\.kind).sorted() == ["like", "reply"])

            // Undo Follow (bovine names the Follow by its id only): the
            // herd's actor is no follower; the next post goes to herd2 and,
            // once the queue is empty, has never been sent to the herd.
            try herd.undo(followID)
            #expect(waitUntil(timeout: 120) { (try? blog.followerCount()) == 1 },
                    "followers: \((try? blog.followerCount()) ?? -1) blogd: \(blog.server.stderr)")
            let herdInbox = try #require(herd.actors["herd"]).inbox
            let postsToTheHerd = { herd.requests.filter { $0.method == "POST" && herdInbox.hasSuffix($0.path) }.count }
            // A delivery to the herd still waiting for its retry (an answer
            // slower than blogd's time limit) would land after the count.
            #expect(waitUntil(timeout: 300) { (try? blog.deliveriesWaiting()) == 0 })
            let sentBefore = postsToTheHerd()
            let third = try blog.post("After the undo", "Only herd2 hears this")
            #expect(waitUntil(timeout: 120) {
                ((try? herd.inbox(of: "herd2")) ?? []).contains { $0.contains("\"\(third)#create\"") }
            }, "herd2 inbox: \((try? herd.inbox(of: "herd2")) ?? []) blogd: \(blog.server.stderr)")
            #expect(waitUntil(timeout: 120) { (try? blog.deliveriesWaiting()) == 0 })
            #expect(postsToTheHerd() == sentBefore, "\(herd.requests)")
            #expect(try !herd.inbox().contains { $0.contains("\"\(third)#create\"") })

            // Blocked: the herd's actor is no follower and its responses
            // are gone; its Follow, reply and Like are refused (403) and
            // change nothing. (The third post rewrote the second's page,
            // its "Newer post" link, first.)
            #expect(waitUntil(timeout: 120) { (try? blog.page(of: second))?.contains("\(blog.id(of: third)).html") == true })
            try blog.block(herd.actorID)
            #expect(try blog.responses().isEmpty, "a block removes the actor's responses")
            #expect(try !blog.page(of: second).contains("A reply from the herd"), "and takes them off the page")
            #expect(try !blog.page(of: second).contains("<span class=\"like-count\">1 like</span>"))
            let before = (followers: try blog.followerCount(), responses: try blog.responses().count,
                          page: try blog.page(of: second))
            #expect(before.followers == 1)
            let refusedBefore = herd.failedDeliveries.count
            let aliceInbox = alice + "/inbox"
            for (step, send) in [("follow", { try herd.follow(alice) }), ("reply", { try herd.reply(to: second, content: "Blocked") }),
                                 ("like", { try herd.like(second) })] as [(String, () throws -> String)] {
                let refused = herd.failedDeliveries.count
                _ = try send()
                #expect(waitUntil(timeout: 120) { herd.failedDeliveries.count > refused }, "\(step): herd: \(herd.stderr)")
                #expect(herd.failedDeliveries.last.map { $0.status == 403 && $0.inbox == aliceInbox } == true,
                        "\(step): \(herd.failedDeliveries)")
            }
            #expect(herd.failedDeliveries.count == refusedBefore + 3)
            #expect(try blog.followerCount() == before.followers)
            #expect(try blog.responses().count == before.responses)
            #expect(try blog.page(of: second) == before.page)
            #expect(try !herd.following().contains("\"\(alice)\""))
        }
    }

    /// What Mastodon requires of WebFinger (docs.joinmastodon.org,
    /// spec/webfinger): the `acct:` resource answered with a `self` link of
    /// type `application/activity+json` to the actor. (bovine takes any
    /// JSON type, so the herd's lookup alone would not tell.)
    static func expectMastodonsWebFinger(_ blog: HerdBlog) throws {
        let answer = try tool("curl", ["-s", "-H", "Accept: application/jrd+json",
                                       blog.base + ".well-known/webfinger?resource=acct:alice@127.0.0.1:\(blog.http)"]).output
        let jrd = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        let links = (jrd?["links"] as? [[String: Any]]) ?? []
        #expect(jrd?["subject"] as? String == "acct:alice@127.0.0.1:\(blog.http)", "\(answer)")
        #expect(links.contains {
            $0["rel"] as? String == "self" && $0["type"] as? String == "application/activity+json"
                && $0["href"] as? String == blog.alice
        }, "\(answer)")
    }

    /// What Mastodon requires of a signed POST (docs.joinmastodon.org,
    /// spec/security, "Signing POST requests and the Digest header") and of
    /// a signed GET (its example: `(request-target) host date`), on what
    /// blogd sent: every delivery signs `(request-target) host date digest`
    /// with a `Digest: SHA-256=` the herd found matching (it answered
    /// `202`), as `application/activity+json`; every fetch of the herd's
    /// actor signs `(request-target) host date` and asks for
    /// `application/activity+json` in `Accept` (Mastodon's actors answer
    /// JSON only to that; a bare GET gets the profile page).
    static func expectMastodonsSignatures(_ requests: [Herd.Request]) {
        let posts = requests.filter { $0.method == "POST" }, gets = requests.filter { $0.method == "GET" }
        #expect(posts.count >= 4, "an Accept, a Create, an Update and a Delete at least: \(requests)")
        #expect(!gets.isEmpty, "blogd fetched the herd's actor: \(requests)")
        for post in posts {
            #expect(post.signed == "(request-target) host date digest", "\(post)")
            #expect(post.digest?.hasPrefix("SHA-256=") == true && post.status == 202, "\(post)")
            #expect(post.algorithm == "rsa-sha256" && post.contentType?.hasPrefix("application/activity+json") == true,
                    "\(post)")
        }
        for get in gets {
            #expect(get.signed == "(request-target) host date", "\(get)")
            #expect(get.accept?.contains("application/activity+json") == true && get.status == 200, "\(get)")
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
            let http = try server.waitForHTTPPort()
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

/// The real blogd for the herd: alice's blog on a web port chosen before
/// the start (the base URL must carry the port the herd reaches), its
/// database and public folder in `folder`, outgoing fetches to loopback
/// allowed.
struct HerdBlog {
    let server: BlogdProcess
    let http: Int
    let port: Int
    let base: String
    let data: [String]
    let environment: [String: String]
    let folder: URL

    var alice: String { base + "ap/alice" }
    var database: String { folder.appendingPathComponent("blog.sqlite").path }

    init(folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        data = ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
        http = try ActivityPubHerdTests.unusedPort()
        base = "http://127.0.0.1:\(http)/"
        environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": base,
                       "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]
        server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", String(http)] + data,
                                  environment: environment)
        port = try server.waitForPort()
        try #require(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        // The herd keeps a failed key fetch for good: alice's actor (and so
        // her key) must answer before anything signed reaches it.
        let actor = base + "ap/alice"
        try #require(waitUntil(timeout: 60) {
            (try? tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Accept: application/activity+json",
                                actor]).output) == "200"
        })
        try #require(try send("login:alice:pw[E];") == "log:OK[E];")
    }

    func stop() { _ = server.stop() }

    /// One blog protocol exchange (alice is logged in by `init`).
    func send(_ message: String) throws -> String { try exchange(message, port: port) }

    /// Posts as alice and returns the post's object id (`BASE ap/alice/posts/ID`).
    func post(_ title: String, _ text: String) throws -> String {
        #expect(try send("newpost:alice:\(title):\(text)[E];") == "post:OK[E];")
        let listing = try send("posts:alice[E];")
        let id = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first.map(String.init))
        return "\(alice)/posts/\(id)"
    }

    /// The post id at the end of an object id.
    func id(of object: String) -> String { String(object.split(separator: "/").last ?? "") }

    /// The post's HTML page as blogd wrote it.
    func page(of object: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent("public/alice/\(id(of: object)).html"), encoding: .utf8)
    }

    /// `totalItems` of alice's followers collection.
    func followerCount() throws -> Int {
        let json = try tool("curl", ["-s", "-H", "Accept: application/activity+json", alice + "/followers"]).output
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return try #require(object?["totalItems"] as? Int, "\(json)")
    }

    /// One line of `blogd webmentions list alice`.
    struct Response: CustomStringConvertible {
        let id, state, kind, postID, source: String
        var description: String { [id, state, kind, postID, source].joined(separator: " ") }
    }

    /// alice's responses (all, or those waiting for approval), as the
    /// admin command lists them.
    func responses(pending: Bool = false) throws -> [Response] {
        let listed = try runBlogd(["webmentions", "list", "alice"] + (pending ? ["--pending"] : []) + data,
                                  environment: environment)
        try #require(listed.status == 0, "\(listed.err)")
        return listed.out.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count >= 5 }
            .map { Response(id: $0[0], state: $0[1], kind: $0[2], postID: $0[3], source: $0[4]) }
    }

    /// Deliveries queued or waiting for their fan-out, read from the file.
    func deliveriesWaiting() throws -> Int {
        let store = try SQLiteStore(path: database, create: false, readOnly: true)
        defer { try? store.close() }
        let counts = try store.deliveryCounts()
        return counts.queuedActivities + counts.queuedDeliveries
    }

    /// alice blocks `actor` with the admin command, while blogd serves:
    /// its follow and responses go, and the pages that showed them are
    /// rewritten.
    func block(_ actor: String) throws {
        let blocked = try runBlogd(["block", "alice", "actor", actor] + data, environment: environment)
        try #require(blocked.status == 0, "\(blocked.err)")
    }
}
