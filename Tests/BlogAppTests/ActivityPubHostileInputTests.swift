import BlogApp
import BlogPages
import BlogTestSupport
import BlogWeb
import Foundation
import Testing

/// What a hostile client can send the ActivityPub doors: random `Accept`
/// fields, paths and WebFinger resources (seeded, so a failure repeats)
/// neither crash nor claim what is not ours, and each answer is a status
/// the doors give.
@Suite
struct ActivityPubHostileInputTests {
    static let alphabet = Array("/.ap%@:acct;q=,*+json html0123456789aliceinbox-_\"\t ".utf8)

    static func text(_ random: inout SeededGenerator, max: Int) -> String {
        let count = Int(random.next() % UInt64(max + 1))
        return String(decoding: (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
    }

    @Test func randomRequestsGetOnlyTheDoorsAnswers() async throws {
        let f = try await ActivityPubFixture(perSecond: 1e9, burst: 1e9)
        f.say("register:alice:pw", "newpost:alice:Hi:there")
        var random = SeededGenerator(seed: 30)
        let allowed: Set<Int> = [200, 303, 400, 404, 410]
        for _ in 0..<3000 {
            let accept = Self.text(&random, max: 60)
            _ = ActivityAccept.wantsJSON(accept, page: true)
            _ = ActivityAccept.wantsJSON(accept)
            let path = "/" + Self.text(&random, max: 30)
            let head = WebRequestHead(method: .get, path: path, accept: accept)
            if f.pages.handles(head: head) {
                let answer = f.pages.respond(to: WebRequest(method: .get, path: path, headers: [.accept: accept]))
                #expect(allowed.contains(Int(answer.status.code)), "\(path) \(accept): \(answer.status)")
                #expect(path.hasPrefix("/ap/") || path.hasPrefix("/.well-known/") || path.hasPrefix("/nodeinfo/")
                        || path.hasSuffix(".html"), "\(path)")
            }
            let resource = Self.text(&random, max: 40)
            let finger = f.pages.respond(to: WebRequest(method: .get, path: "/.well-known/webfinger",
                                                        query: "resource=" + AppFixture.Browser.encode(resource)))
            #expect([200, 400, 404].contains(Int(finger.status.code)), "\(resource)")
        }
        #expect(!f.pages.handles(head: WebRequestHead(method: .post, path: "/alice.html", accept: "application/activity+json")),
                "a page's POST stays the files' (405)")
        #expect(!f.pages.handles(head: WebRequestHead(method: .get, path: "/index.html", accept: "application/activity+json")))
        #expect(!f.pages.handles(head: WebRequestHead(method: .get, path: "/ap/inbox", accept: "application/activity+json")))
        let head = f.pages.respond(to: WebRequest(method: .head, path: "/ap/alice", headers: [.accept: "application/activity+json"]))
        #expect(head.status == .ok, "HEAD is read like GET; the server drops the body")
        await f.close()
    }
}
