import BlogTestSupport
import Foundation
import Testing

/// The bovine-herd harness (`Tests/Fediverse/herd.py`, driven by
/// `BlogTestSupport.Herd`) against the Python stand-in blog: the path the
/// ActivityPub end-to-end test takes with the real binary in its place.
/// Skipped with one line without bovine-herd (docs/testing-fediverse.md),
/// failed then under `BLOGD_REQUIRE_PY_TOOLS=1`.
@Suite("bovine-herd harness (stand-in blog)")
struct HerdHarnessTests {
    @Test func herdFollowsTheStandInAndReceivesItsPosts() throws {
        let python: String
        switch Herd.find() {
        case .found(let found): python = found
        case .missing(let line):
            try #require(!Herd.required, "\(line)")
            print(line)
            return
        }
        try withTemporaryFolder { folder in
            let herd = try Herd(python: python, folder: folder.appendingPathComponent("herd"))
            defer { herd.stop() }
            let standIn = try FediverseStandIn(python: python, folder: folder)
            defer { standIn.stop() }
            let alice = standIn.base + "ap/alice"
            let host = URL(string: standIn.base)!.host! + ":" + String(URL(string: standIn.base)!.port!)

            let followID = try herd.follow("acct:alice@\(host)")
            #expect(followID.hasPrefix(herd.url + "/objects/"))

            // Each step the stand-in takes waits for the herd's answer; the
            // herd then handles the item in a background task, so its
            // state is polled. The timeouts only bound a broken run.
            let accepted = waitUntil(timeout: 120) {
                standIn.events.contains { $0.hasPrefix("delete ") || $0.hasPrefix("failed ") }
            }
            #expect(accepted, "stand-in: \(standIn.events) \(standIn.stderr)")
            #expect(standIn.events.contains("verified \(herd.actorID)"))
            #expect(standIn.events.contains("follow \(followID)"))
            for step in ["accept 202 ", "create 202 \(alice)/posts/1", "update 202 \(alice)/posts/1",
                         "create 202 \(alice)/posts/2", "delete 202 \(alice)/posts/2"] {
                #expect(standIn.events.contains { $0.hasPrefix(step) }, "\(step) in \(standIn.events)")
            }

            #expect(waitUntil(timeout: 120) { (try? herd.following())?.contains("\"\(alice)\"") == true })
            #expect(waitUntil(timeout: 120) {
                let inbox = (try? herd.inbox()) ?? []
                return inbox.count == 5 && inbox.contains { $0.contains("\"\(alice)/posts/1#create\"") }
            }, "herd inbox: \((try? herd.inbox()) ?? [])")
            #expect(waitUntil(timeout: 120) {
                (try? herd.object("\(alice)/posts/1"))?.contains("Hello again, edited") == true
            })
            #expect(waitUntil(timeout: 120) {
                (try? herd.object("\(alice)/posts/2"))?.contains("\"Tombstone\"") == true
            })
        }
    }
}
