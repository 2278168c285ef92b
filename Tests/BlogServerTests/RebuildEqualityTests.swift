import BlogCore
import BlogTestSupport
import Foundation
import Testing

/// Pages written as posts come in equal the pages a rebuild from the
/// database writes: a clean restart's check rewrites nothing.
@Suite("Pages equal their rebuild")
struct RebuildEqualityTests {
    /// 8 clients post 400 posts to one user while the clock moves by odd
    /// fractions of a millisecond (the bug: a time of 43.9996 s rendered
    /// as :43Z, stored as 44.000 and rebuilt as :44Z).
    @Test func aCleanRestartRewritesNothing() throws {
        let f = try ServerFixture(settings: .init(scrypt: .testing, pageSize: 20))
        defer { f.tearDown() }
        try f.registerAndLogin("writer")
        // The bug's own case first: 0.9996 s past a whole second.
        f.advance(by: 0.9996)
        #expect(try f.ask("newpost:writer:Edge:text[E];") == "post:OK[E];")
        let port = f.port
        let finished = runOnThreads(8, prepare: { _ in () }) { thread, _ in
            for index in 0..<50 {
                f.advance(by: 0.000_999_7)
                guard let client = try? TestClient(port: port, timeout: 60) else { return }
                try? client.send("newpost:writer:Post \(thread)-\(index):text[E];")
                _ = client.readToEnd()
                client.close()
            }
        }
        #expect(finished)
        #expect(try f.postCount(of: "writer") == 401)
        f.service.writeIndex()
        // A fresh service on the same files, as after a restart.
        let restarted = try BlogService(store: f.store, pages: f.pages, settings: .init(scrypt: .testing, pageSize: 20),
                                        logger: f.logger, now: { TestBlog.date(of: f.blog.clock) })
        let report = try restarted.repairPages()
        #expect(report.checked == 1)
        #expect(report.rebuilt.isEmpty, "rewritten: \(report.rebuilt)")
    }
}
