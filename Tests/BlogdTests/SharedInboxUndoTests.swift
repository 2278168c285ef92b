import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary's shared inbox (`/ap/inbox`) taking an `Undo` that
/// names only the id of what it undoes, as bovine sends it: a Follow (the
/// blog is found by the follower row with that Follow id, on every blog),
/// a Like. Signed POSTs with a real key, from a stub fediverse server on
/// loopback; a third party that signs as itself and names someone else's
/// Follow id removes nothing. On SQLite and on PostgreSQL.
@Suite(.serialized)
struct SharedInboxUndoTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example/",
                       "BLOGD_REGISTRATION": "closed", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-undo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    func data(_ database: String?) -> [String] {
        ["--db", database ?? folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func send(_ fediverse: FollowersEndToEndTests.Fediverse, _ name: String, _ activity: [String: Any],
              to path: String = "/ap/inbox", http: Int) throws -> Int {
        try postSigned(activity, by: name, of: fediverse, to: path, http: http, folder: folder)
    }

    /// The actors following `blog`, from `blogd followers`.
    func followers(_ blog: String, on database: String?) throws -> [String] {
        let listed = try runBlogd(["followers", blog] + data(database), environment: environment)
        return listed.out.split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
    }

    /// The ActivityPub responses kept for `blog`'s posts: kind and source.
    func responses(_ blog: String, on database: String?) throws -> [String] {
        let listed = try runBlogd(["webmentions", "list", blog] + data(database), environment: environment)
        return listed.out.split(separator: "\n").map { line in
            let cells = line.split(separator: "\t")
            return "\(cells[2]) \(cells[4])"
        }
    }

    @Test func anUndoByIdAloneAtTheSharedInbox() throws {
        try undoing(on: nil)
    }

    @Test(.enabled(if: PostgresCluster.enabled)) func anUndoByIdAloneAtTheSharedInboxOnPostgreSQL() throws {
        try undoing(on: try PostgresCluster.shared().makeDatabase())
    }

    func undoing(on database: String?) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let fediverse = try FollowersEndToEndTests.Fediverse()
        fediverse.setInboxStatus(202)
        defer { fediverse.server.stop() }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data(database),
                                      environment: environment)
        defer { _ = server.stop() }
        let port = try server.waitForPort()
        let http = try server.waitForHTTPPort()
        for name in ["alice", "carol"] {
            #expect(try runBlogd(["adduser", name] + data(database), environment: environment, input: "pw\n").status == 0)
        }
        let bob = fediverse.actor("bob")

        // bob follows both blogs through the shared inbox, one Follow id each.
        for blog in ["alice", "carol"] {
            let follow: [String: Any] = ["id": bob + "/follows/\(blog)", "type": "Follow",
                                         "object": "https://blog.example/ap/\(blog)"]
            #expect(try send(fediverse, "bob", follow, http: http) == 202, "blogd: \(server.stderr)")
        }
        #expect(try followers("alice", on: database) == [bob] && followers("carol", on: database) == [bob])

        // eve, signing as herself, names bob's Follow id: nothing goes.
        let eveUndo: [String: Any] = ["id": fediverse.actor("eve") + "/undo/1", "type": "Undo", "object": bob + "/follows/alice"]
        #expect(try send(fediverse, "eve", eveUndo, http: http) == 202)
        #expect(try followers("alice", on: database) == [bob], "a third party undoes no one's follow")

        // bob's own Undo, the Follow's id alone: alice loses him, carol keeps him.
        let undo: [String: Any] = ["id": bob + "/undo/1", "type": "Undo", "object": bob + "/follows/alice"]
        #expect(try send(fediverse, "bob", undo, http: http) == 202)
        #expect(try followers("alice", on: database).isEmpty)
        #expect(try followers("carol", on: database) == [bob])

        // A Like of alice's post, then its Undo by the Like's id alone.
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:Hello:First post[E];", port: port) == "post:OK[E];")
        let pages = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("public/alice").path)
        let id = try #require(pages.compactMap { Int64($0.dropLast(5)) }.first, "\(pages)")
        let like: [String: Any] = ["id": bob + "/likes/1", "type": "Like", "object": "https://blog.example/ap/alice/posts/\(id)"]
        #expect(try send(fediverse, "bob", like, http: http) == 202)
        #expect(try responses("alice", on: database) == ["like \(bob)/likes/1"])
        let eveUndoLike: [String: Any] = ["id": fediverse.actor("eve") + "/undo/2", "type": "Undo", "object": bob + "/likes/1"]
        #expect(try send(fediverse, "eve", eveUndoLike, http: http) == 202)
        #expect(try responses("alice", on: database).count == 1, "a third party undoes no one's like")
        let undoLike: [String: Any] = ["id": bob + "/undo/2", "type": "Undo", "object": bob + "/likes/1"]
        #expect(try send(fediverse, "bob", undoLike, http: http) == 202)
        #expect(try responses("alice", on: database).isEmpty)
        #expect(server.stop() == 0)
    }
}
