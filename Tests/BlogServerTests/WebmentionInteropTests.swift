import BlogCore
import BlogFetch
import BlogModel
import BlogPages
import BlogTestSupport
import Foundation
import Testing

/// Webmention sending against an independent implementation: ronkyuu
/// (PyPI), found through `BLOGD_PYTHON`, finds the same mentions in our
/// post page as our sender sends, and discovers the same endpoints on the
/// receivers' pages as ours did.
@Suite("Webmention interop (ronkyuu)", .offPool)
struct WebmentionInteropTests {
    /// The interpreter with ronkyuu, or nil (one line said) when it is
    /// missing and not required (`BLOGD_REQUIRE_PY_TOOLS=1` fails instead).
    static func python() throws -> String? {
        let python = ProcessInfo.processInfo.environment["BLOGD_PYTHON"] ?? "/usr/bin/python3"
        if (try? tool(python, ["-c", "import ronkyuu"]).status) == 0 { return python }
        try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] != "1",
                     "ronkyuu is missing for \(python): pip install ronkyuu (and set BLOGD_PYTHON)")
        print("skipped: ronkyuu is missing for \(python) (set BLOGD_PYTHON to a Python with it)")
        return nil
    }

    /// ronkyuu's answer for `call` (a Python expression over `url`), one line.
    static func ronkyuu(_ python: String, _ call: String, _ url: String) throws -> String {
        let script = "import sys, ronkyuu\nurl = sys.argv[1]\nprint(\(call))"
        let (status, output) = try tool("env", ["NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", python, "-c", script, url])
        #expect(status == 0)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func ronkyuuAgreesOnMentionsAndEndpoints() throws {
        guard let python = try Self.python() else { return }
        let f = try ServerFixture()
        f.store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
        // Receivers as the spec's discovery cases have them (lowercase rel).
        let pages: [(String, [(String, String)])] = [
            ("<p>header</p>", [("Link", "</wm/1?k=v>; rel=\"webmention\"")]),
            ("<head><link rel=\"webmention\" href=\"/wm/2\"></head>", []),
            ("<body><a rel=\"webmention\" href=\"wm/3\">x</a></body>", []),
        ]
        let receivers = try pages.map { page in
            try HTTPStubServer { request in request.method == "POST" ? .init(status: 202) : .html(page.0, headers: page.1) }
        }
        let posts = try HTTPStubServer { request in
            // Our post pages, as a static server serves the public folder.
            let file = f.publicFolder.appendingPathComponent(String(request.path.dropFirst()))
            guard let page = try? Data(contentsOf: file) else { return .init(status: 404) }
            return .html(String(decoding: page, as: UTF8.self))
        }
        var settings = WebmentionSender.Settings()
        settings.pollInterval = nil
        let sender = WebmentionSender(storage: f.store, http: FetcherHTTP(OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true))),
                                      baseURL: posts.url("/"), settings: settings)
        defer {
            _ = f.tearDown()
            (receivers + [posts]).forEach { $0.stop() }
        }
        try f.registerAndLogin("alice")
        let targets = receivers.map { $0.url("/dir/post") }
        #expect(try f.ask("newpost:alice:Links:\(targets.joined(separator: " and ")), (see http://127.0.0.1:1/a_(b)).[E];")
                == "post:OK[E];")
        let alice = try #require(try f.store.user(named: "alice"))
        let post = try #require(try f.store.posts(ofUserID: alice.id).first)
        let queued = Set(try f.store.queuedWebmentions(limit: 9).map(\.target))
        #expect(queued == Set(targets + ["http://127.0.0.1:1/a_(b)"]))

        // ronkyuu finds in our page exactly the links we queued.
        let source = posts.url("/alice/\(post.id).html")
        let found = try Self.ronkyuu(python, "'\\n'.join(sorted(ronkyuu.findMentions(url, test_urls=False)['refs']))", source)
        #expect(Set(found.split(separator: "\n").map(String.init)) == queued)

        // Our sender's endpoints are the ones ronkyuu discovers.
        while try sender.sendDue() > 0 {}
        for receiver in receivers {
            let posted = try #require(receiver.requests.first { $0.method == "POST" })
            #expect(posted.form["source"] == source && posted.form["target"] == receiver.url("/dir/post"))
            let discovered = try Self.ronkyuu(python, "ronkyuu.discoverEndpoint(url, test_urls=False)[1]", receiver.url("/dir/post"))
            #expect(receiver.url(posted.path) == discovered)
        }
    }
}
