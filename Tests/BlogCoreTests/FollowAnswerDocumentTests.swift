import BlogCore
import BlogModel
import BlogPages
import Foundation
import Testing

/// The `Reject` of a follow as its peers parse it, and the rules every
/// door checks a block's input by (`BlockInput`).
struct FollowAnswerDocumentTests {
    let urls = ActivityURLs(base: "https://blog.example/")

    @Test func aRejectNamesTheFollowWhole() throws {
        let follow = "https://social.example/5c1f0a2e-follow"
        let reject = try ActivityDocumentTests.parsed(ActivityDocuments.reject(
            followID: follow, follower: "https://social.example/users/bob", user: "alice", urls: urls))
        let id = try #require(reject["id"] as? String)
        let accept = ActivityDocuments.acceptID(followID: follow, user: "alice", urls: urls)
        #expect(id == "https://blog.example/ap/alice#reject-" + accept.suffix(16), "the Accept's hash, named apart")
        #expect(reject["type"] as? String == "Reject" && reject["actor"] as? String == "https://blog.example/ap/alice")
        #expect(reject["to"] as? [String] == ["https://social.example/users/bob"])
        let followed = try #require(reject["object"] as? [String: Any])
        #expect(followed["id"] as? String == follow && followed["type"] as? String == "Follow")
        #expect(followed["actor"] as? String == "https://social.example/users/bob")
        #expect(followed["object"] as? String == "https://blog.example/ap/alice")
        #expect((reject["@context"] as? [Any]) != nil || reject["@context"] is String)
    }

    @Test func answerActivityIDsAreNegativeAndApart() {
        let accept = DeliveryKind.answerActivityID(userID: 1, kind: .accept, followID: "f")
        #expect(accept < 0 && accept == DeliveryKind.answerActivityID(userID: 1, kind: .accept, followID: "f"))
        #expect(accept != DeliveryKind.answerActivityID(userID: 1, kind: .reject, followID: "f"))
        #expect(accept != DeliveryKind.answerActivityID(userID: 2, kind: .accept, followID: "f"))
        #expect(accept != DeliveryKind.answerActivityID(userID: 1, kind: .accept, followID: "g"))
    }

    @Test func blockInputTakesActorsAndDomainsOnly() throws {
        #expect(try BlockInput.target(kind: "actor", value: " https://social.example/users/bob ").get()
                == .actor("https://social.example/users/bob"))
        #expect(try BlockInput.target(kind: "domain", value: "Social.Example.").get() == .domain("social.example"))
        #expect(try BlockInput.target(kind: "domain", value: "xn--bcher-kva.example").get() == .domain("xn--bcher-kva.example"))
        for (kind, value) in [
            ("actor", ""), ("actor", "social.example"), ("actor", "mailto:bob@social.example"),
            ("actor", "https://bob:pw@social.example/u"), ("actor", "https://social.example/u b"),
            ("actor", "https://social.example/u\u{0}"), ("actor", "https:///nohost"),
            ("actor", "https://x.example/" + String(repeating: "a", count: 2048)),
            ("domain", ""), ("domain", "   "), ("domain", "http://social.example"), ("domain", "social.example:443"),
            ("domain", "bob@social.example"), ("domain", "social.example/x"), ("domain", "-bad.example"),
            ("domain", "bad-.example"), ("domain", "a..example"), ("domain", "bücher.example"), ("domain", "a b.example"),
            ("domain", String(repeating: "a", count: 64) + ".example"),
            ("domain", String(repeating: "a.", count: 127) + "ex"),
            ("user", "x"), ("", "x"),
        ] {
            guard case .failure(.invalid) = BlockInput.target(kind: kind, value: value) else {
                Issue.record("taken: \(kind) \(value.prefix(40))")
                continue
            }
        }
    }
}
