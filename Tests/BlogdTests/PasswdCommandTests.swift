import BlogTestSupport
import Foundation
import Testing

/// `blogd passwd NAME`, the real binary: the new password from standard
/// input (never the command line), the rules of register, clear errors;
/// the old password stops working and the user's blog-port leases end.
@Suite(.serialized)
struct PasswdCommandTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-passwd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] {
        ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func admin(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments + data, environment: environment, input: input)
    }

    func serve() throws -> (BlogdProcess, Int) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data, environment: environment)
        return (server, try server.waitForPort())
    }

    /// While the server runs: its leases end within `LoginLeases.recheck`
    /// (5 s), when it next asks the database; after a restart at once.
    @Test func aNewPasswordReplacesTheOldAndEndsLeases() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Admin commands make no database: `serve` does.
        try makeDatabase(folder.appendingPathComponent("blog.sqlite").path)
        #expect(try admin(["adduser", "alice"], input: "old pw\n").status == 0)
        var (server, port) = try serve()
        #expect(try exchange("login:alice:old pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:By lease:x[E];", port: port) == "post:OK[E];", "the login left a lease")

        let changed = try admin(["passwd", "ALICE"], input: "new pw\n")
        #expect(changed.status == 0 && changed.out.contains("set the password of ALICE"), "\(changed.err)")
        #expect(waitUntil(timeout: 120) { (try? exchange("newpost:alice:Again:x[E];", port: port)) == "post:NA[E];" },
                "the running server's lease ended")
        #expect(try exchange("login:alice:old pw[E];", port: port) == "log:NA[E];")
        _ = server.stop()

        (server, port) = try serve()
        defer { _ = server.stop() }
        #expect(try exchange("newpost:alice:Lease gone:x[E];", port: port) == "post:NA[E];", "the lease stays ended")
        #expect(try exchange("login:alice:old pw[E];", port: port) == "log:NA[E];")
        #expect(try exchange("login:alice:new pw[E];", port: port) == "log:OK[E];")
    }

    @Test func clearErrorsChangeNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Admin commands make no database: `serve` does.
        try makeDatabase(folder.appendingPathComponent("blog.sqlite").path)
        #expect(try admin(["adduser", "alice"], input: "old pw\n").status == 0)
        let cases: [(arguments: [String], input: String?, error: String)] = [
            (["passwd", "bob"], "x\n", "no such user: bob"),
            (["passwd", "alice"], "\n", "the password must be 1 to 256 bytes"),
            (["passwd", "alice"], String(repeating: "x", count: 257) + "\n", "the password must be 1 to 256 bytes"),
            (["passwd", "alice"], "", "give the new password on standard input"),
        ]
        for item in cases {
            let result = try admin(item.arguments, input: item.input)
            #expect(result.status != 0 && result.err.contains(item.error), "\(item.arguments): \(result.err)")
        }
        // No way to give it on the command line.
        let argv = try admin(["passwd", "alice", "new pw"], input: "new pw\n")
        #expect(argv.status != 0)
        let (server, port) = try serve()
        defer { _ = server.stop() }
        #expect(try exchange("login:alice:old pw[E];", port: port) == "log:OK[E];")
    }
}
