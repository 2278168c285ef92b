import BlogCore
import BlogSQLite
import BlogTestSupport
import Foundation
import Testing
import BlogAuth
import BlogModel

/// `blogd token`, `tokens` and `revoke-token`, run as processes while
/// `blogd serve` runs on the same database; what they make is checked
/// with `AccessTokens` on the database itself.
@Suite(.serialized)
struct TokenCommandsTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var database: String { folder.appendingPathComponent("blog.sqlite").path }

    var data: [String] { ["--db", database, "--public", folder.appendingPathComponent("public").path] }

    func admin(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments + data, environment: environment, input: input)
    }

    /// What `secret` verifies as, read from the database file now.
    func verify(_ secret: String) throws -> (user: UserRecord, token: AccessToken)? {
        let store = try SQLiteStore(path: database, create: false)
        defer { try? store.close() }
        return try AccessTokens(storage: store).verify(secret, kind: .bearer)
    }

    @Test func issueListRevokeWhileTheServerRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        _ = try server.waitForPort()
        #expect(try admin(["adduser", "alice"], input: "pw\n").status == 0)
        #expect(try admin(["adduser", "bob"], input: "pw\n").status == 0)

        // Issue: the secret alone on stdout.
        let issued = try admin(["token", "ALICE", "--scope", "media create", "--label", "Quill"])
        #expect(issued.status == 0, "\(issued.err)")
        let secret = issued.out.trimmingCharacters(in: .newlines)
        #expect(issued.out == secret + "\n", "one line")
        #expect(secret.wholeMatch(of: /blogd_[A-Za-z0-9_-]{43}/) != nil, "\(secret)")
        let (user, token) = try #require(try verify(secret))
        #expect(user.name == "alice" && token.scopes == "create media" && token.label == "Quill" && token.expiresAt == nil)
        #expect(issued.err.contains("made token \(token.id)"))

        let plain = try admin(["token", "alice"])
        #expect(plain.status == 0, "\(plain.err)")
        let second = plain.out.trimmingCharacters(in: .newlines)
        let secondToken = try #require(try verify(second)).token
        #expect(secondToken.scopes == "create" && secondToken.label == "blogd token", "the defaults")

        // List: ids, kinds, scopes, labels; never a secret.
        let listed = try admin(["tokens", "alice"])
        #expect(listed.status == 0, "\(listed.err)")
        let lines = listed.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID  KIND") == true, "\(listed.out)")
        #expect(lines.count == 4 && lines.last == "2 tokens")
        #expect(lines[1].contains("\(secondToken.id)  bearer  create ") && lines[1].hasSuffix("never"), "newest first")
        #expect(lines[2].contains("\(token.id)  bearer  create media  Quill"), "\(lines[2])")
        #expect(!listed.out.contains(secret.dropFirst(6)) && !listed.out.contains(second.dropFirst(6)))
        #expect(!listed.out.contains(/[0-9a-f]{64}/), "nor a hash")
        #expect(try admin(["tokens", "bob"]).out == "ID  KIND  SCOPES  LABEL  CREATED (UTC)  EXPIRES (UTC)\n0 tokens\n")

        // Revoke: only by its owner's name; a revoked token verifies no more.
        let wrongOwner = try admin(["revoke-token", "bob", String(token.id)])
        #expect(wrongOwner.status != 0 && wrongOwner.err.contains("bob has no token \(token.id)"))
        #expect(try verify(secret) != nil)
        let revoked = try admin(["revoke-token", "alice", String(token.id)])
        #expect(revoked.status == 0 && revoked.out == "revoked token \(token.id) of alice\n", "\(revoked.err)")
        #expect(try verify(secret) == nil)
        #expect(try verify(second) != nil, "the other token stays")
        #expect(try admin(["revoke-token", "alice", String(token.id)]).status != 0, "gone already")
        #expect(try admin(["tokens", "alice"]).out.split(separator: "\n").last == "1 token")
        #expect(server.stop() == 0)
    }

    /// The same commands on PostgreSQL: the secret alone on stdout, and a
    /// revoked token gone from the listing.
    @Test(.enabled(if: PostgresCluster.enabled)) func onPostgres() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try PostgresCluster.shared().makeDatabase()
        func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
            try runBlogd(arguments + ["--db", db, "--public", folder.appendingPathComponent("public").path],
                         environment: environment, input: input)
        }
        #expect(try run(["adduser", "alice"], input: "pw\n").status == 0)
        let issued = try run(["token", "alice", "--scope", "create update", "--label", "script"])
        #expect(issued.status == 0, "\(issued.err)")
        #expect(issued.out.wholeMatch(of: /blogd_[A-Za-z0-9_-]{43}\n/) != nil, "\(issued.out)")
        let id = try #require(issued.err.firstMatch(of: /made token (\d+)/)?.1)
        let listed = try run(["tokens", "alice"])
        #expect(listed.status == 0 && listed.out.contains("\(id)  bearer  create update  script"), "\(listed.out)\(listed.err)")
        #expect(!listed.out.contains(issued.out.dropFirst(6).dropLast()))
        #expect(try run(["revoke-token", "alice", String(id)]).status == 0)
        #expect(try run(["tokens", "alice"]).out.hasSuffix("0 tokens\n"))
        #expect(try run(["revoke-token", "alice", String(id)]).status != 0)
    }

    @Test func unknownUsersAndScopesAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeDatabase(database)
        #expect(try admin(["adduser", "alice"], input: "pw\n").status == 0)
        for command in [["token", "nobody"], ["tokens", "nobody"], ["revoke-token", "nobody", "1"]] {
            let result = try admin(command)
            #expect(result.status != 0 && result.out.isEmpty, "\(command)")
            #expect(result.err.contains("no such user: nobody"), "\(command): \(result.err)")
        }
        let misspelt = try admin(["token", "alice", "--scope", "create publish"])
        #expect(misspelt.status != 0 && misspelt.out.isEmpty && misspelt.err.contains("unknown scope \"publish\""))
        let empty = try admin(["token", "alice", "--scope", " "])
        #expect(empty.status != 0 && empty.out.isEmpty && empty.err.contains("at least one scope"))
        #expect(try admin(["tokens", "alice"]).out.hasSuffix("0 tokens\n"), "nothing was made")
    }
}
