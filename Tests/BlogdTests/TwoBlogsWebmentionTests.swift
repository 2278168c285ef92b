import BlogTestSupport
import Foundation
import Testing

/// Two real `blogd` processes on loopback, each with its own database,
/// public folder and `base_url` (its own page server's port): alice's
/// post on blog A links to bob's post on blog B, A's sender tells B, B's
/// verifier reads A's page, bob approves, and the response follows the
/// post through an edit and a deletion. A's pages carry no
/// `u-in-reply-to` (a blog-port post is plain text), so B records a
/// mention, not a reply.
@Suite(.serialized)
struct TwoBlogsWebmentionTests {
    /// One blog: its folder, its server and where it listens.
    struct Blog {
        let folder: URL
        let server: BlogdProcess
        let port: Int
        let http: Int
        let environment: [String: String]

        var base: String { "http://127.0.0.1:\(http)/" }
        var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path,
                              "--public", folder.appendingPathComponent("public").path] }

        /// Starts a blog whose `base_url` names the page server's own
        /// port (a free one chosen here: with port 0 the URL is unknown).
        static func start(_ name: String) throws -> Blog {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-two-\(name)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            let http = try HAProxyProcess.freePort()
            let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true",
                               "BLOGD_BASE_URL": "http://127.0.0.1:\(http)/"]
            let data = ["--db", folder.appendingPathComponent("blog.sqlite").path,
                        "--public", folder.appendingPathComponent("public").path]
            let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", String(http)] + data,
                                          environment: environment)
            let port = try server.waitForPort()
            return Blog(folder: folder, server: server, port: port, http: http, environment: environment)
        }

        func stop() {
            _ = server.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        /// Registers and logs in `user`, then posts; returns the post's id.
        func post(_ user: String, title: String, _ content: String) throws -> Int64? {
            #expect(try exchange("register:\(user):pw[E];", port: port) == "reg:OK[E];")
            #expect(try exchange("login:\(user):pw[E];", port: port) == "log:OK[E];")
            #expect(try exchange("newpost:\(user):\(title):\(content)[E];", port: port) == "post:OK[E];")
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("public/\(user)").path)
            return names.compactMap { $0.hasSuffix(".html") ? Int64($0.dropLast(5)) : nil }.first
        }

        func page(_ user: String, _ id: Int64) -> String {
            (try? String(contentsOf: folder.appendingPathComponent("public/\(user)/\(id).html"), encoding: .utf8)) ?? ""
        }

        /// `blogd webmentions ARGUMENTS` on this blog's database.
        func webmentions(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
            (try? runBlogd(["webmentions"] + arguments + data, environment: environment)) ?? (-1, "", "")
        }
    }

    @Test func aMentionIsSentVerifiedApprovedUpdatedAndRemoved() throws {
        let bobs = try Blog.start("b")
        defer { bobs.stop() }
        let alices = try Blog.start("a")
        defer { alices.stop() }

        let bobsPost = try #require(try bobs.post("bob", title: "Tabs or spaces", "Which do you use?"))
        let target = "\(bobs.base)bob/\(bobsPost).html"
        let alicesPost = try #require(try alices.post("alice", title: "Re tabs", "Tabs, always: \(target)"))
        let source = "\(alices.base)alice/\(alicesPost).html"
        #expect(alices.page("alice", alicesPost).contains("h-entry"), "A's page carries the microformats B reads")

        // A's sender finds B's endpoint and sends; B verifies in the
        // background by fetching A's page. Nothing shows before approval.
        var listed = ""
        #expect(bobs.server.waitUntil(timeout: 60) {
            listed = bobs.webmentions(["list", "bob", "--pending"]).out
            return listed.contains("\tpending\t")
        }, "A: \(alices.server.stderr)\nB: \(bobs.server.stderr)")
        let fields = listed.split(separator: "\n").first?.split(separator: "\t", omittingEmptySubsequences: false) ?? []
        #expect(fields.count == 6 && fields[2] == "mention" && fields[3] == "\(bobsPost)" && fields[4] == "\(source)",
                "a mention of bob's post from alice's page: \(listed)")
        #expect(fields.count == 6 && fields[5] == "alice", "A's h-card names alice: \(listed)")
        #expect(!bobs.page("bob", bobsPost).contains("Tabs, always"), "not shown before approval")

        let id = try #require(fields.first.flatMap { Int64($0) })
        let approved = bobs.webmentions(["approve", String(id)])
        #expect(approved.status == 0, "\(approved.err)")
        let shown = bobs.page("bob", bobsPost)
        #expect(shown.contains("Tabs, always") && shown.contains("mentioned this") && shown.contains("1 mention"), "\(shown)")
        #expect(shown.contains("href=\"\(source)\""), "linked to alice's post")

        // An edit is sent again; B verifies again and shows the new text.
        #expect(try exchange("editpost:alice:\(alicesPost):Re tabs:Spaces, I changed my mind: \(target)[E];",
                             port: alices.port) == "edit:OK[E];")
        #expect(bobs.server.waitUntil(timeout: 60) {
            let page = bobs.page("bob", bobsPost)
            return page.contains("Spaces, I changed my mind") && !page.contains("Tabs, always")
        }, "\(bobs.page("bob", bobsPost))\nA: \(alices.server.stderr)\nB: \(bobs.server.stderr)")
        #expect(bobs.webmentions(["list", "bob"]).out.contains("\(id)\tshown\tmention\t"), "still approved")

        // A deletion: A's page answers 410, B learns it and drops the response.
        #expect(try exchange("delpost:alice:\(alicesPost)[E];", port: alices.port) == "del:OK[E];")
        #expect(try httpRequest(port: alices.http, path: "/alice/\(alicesPost).html").status == 410)
        #expect(bobs.server.waitUntil(timeout: 60) { !bobs.page("bob", bobsPost).contains("I changed my mind") },
                "\(bobs.page("bob", bobsPost))\nA: \(alices.server.stderr)\nB: \(bobs.server.stderr)")
        #expect(bobs.webmentions(["list", "bob"]).out.isEmpty)
        let served = try httpRequest(port: bobs.http, path: "/bob/\(bobsPost).html")
        #expect(served.status == 200 && served.body.contains("Which do you use?") && !served.body.contains("mentioned this"))
    }
}
