import BlogTestSupport
import Foundation
import Testing

/// The blog read by an independent implementation: bovine (PyPI)'s
/// parsers and the checks Mastodon documents, through
/// Tests/ActivityPub/ap_check.py over real HTTP on loopback.
@Suite("ActivityPub interop (bovine)")
struct ActivityPubInteropTests {
    /// The interpreter with bovine, or nil (one line said) when it is
    /// missing and not required (`BLOGD_REQUIRE_PY_TOOLS=1` fails instead).
    static func python() throws -> String? {
        let python = ProcessInfo.processInfo.environment["BLOGD_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        if (try? tool(python, ["-c", "import bovine, bs4, lxml"]).status) == 0 { return python }
        try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] != "1",
                     "bovine is missing for \(python): pip install bovine (and set BLOGD_PYTHON)")
        print("skipped: bovine is missing for \(python) (set BLOGD_PYTHON to a Python with it)")
        return nil
    }

    @Test func bovineReadsTheBlogAsMastodonWould() async throws {
        guard let python = try Self.python() else { return }
        let f = try await ActivityPubFixture()
        f.say("register:alice:pw", "newpost:alice:Hello:A #first post\nwith two lines")
        let id = try #require(try f.postIDs().first)
        let script = repositoryRoot.appendingPathComponent("Tests/ActivityPub/ap_check.py").path
        let server = "http://127.0.0.1:\(f.web.port)/"
        let (status, output) = try await onThread {
            try tool("env", ["NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", python, script, server, ActivityPubFixture.base,
                             "alice", String(id)])
        }
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("ok webfinger acct:alice@blog.example -> https://blog.example/ap/alice"), "\(output)")
        #expect(lines.contains { $0.hasPrefix("ok actor https://blog.example/ap/alice key https://blog.example/ap/alice#main-key") })
        #expect(lines.contains("ok note https://blog.example/ap/alice/posts/\(id) tags #first"), "\(output)")
        #expect(lines.contains { $0.hasPrefix("ok pages link") })
        #expect(lines.contains("ok outbox 1 items, first page 1"))
        #expect(lines.contains("ok nodeinfo blogd 9.9.9 users 1 posts 1"), "\(output)")
        await f.close()
    }
}
