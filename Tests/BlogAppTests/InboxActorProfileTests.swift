import BlogApp
import BlogFetch
import BlogTestSupport
import Foundation
import Testing

/// A follower's inbox read from its actor document, when the signature
/// check did not bring it: fetched over loopback HTTP with the bounded
/// fetcher, and refused when the document points elsewhere.
@Suite struct InboxActorProfileTests {
    static let dana = "https://social.example/users/dana"

    static func document(_ fields: [String: Any]) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: fields))
    }

    @Test func readsInboxSharedInboxNameAndURL() {
        let body = Self.document(["id": Self.dana, "type": "Person", "inbox": Self.dana + "/inbox", "preferredUsername": "dana",
                                  "name": "", "endpoints": ["sharedInbox": "https://social.example/inbox"],
                                  "url": "https://social.example/@dana"])
        #expect(InboxActorProfile.read(body, actor: Self.dana) == InboxActorProfile(
            inbox: Self.dana + "/inbox", sharedInbox: "https://social.example/inbox", name: "dana", url: "https://social.example/@dana"))
    }

    @Test func refusesDocumentsThatAreNotTheActorsOrPointElsewhere() {
        let cases: [[String: Any]] = [
            ["id": "https://social.example/users/eve", "inbox": Self.dana + "/inbox"],
            ["id": Self.dana],
            ["id": Self.dana, "inbox": 5],
            ["id": Self.dana, "inbox": "https://victim.example/inbox"],
            ["id": Self.dana, "inbox": "javascript:alert(1)"],
        ]
        for fields in cases { #expect(InboxActorProfile.read(Self.document(fields), actor: Self.dana) == nil, "\(fields)") }
        #expect(InboxActorProfile.read(Array("[[[[".utf8), actor: Self.dana) == nil)
        let shared = Self.document(["id": Self.dana, "inbox": Self.dana + "/inbox",
                                    "endpoints": ["sharedInbox": "https://victim.example/inbox"]])
        #expect(InboxActorProfile.read(shared, actor: Self.dana)?.sharedInbox == nil, "a shared inbox elsewhere is dropped")
    }

    @Test func aFollowWithoutAnInboxReadsTheActorsDocument() async throws {
        let server = try await LoopbackHTTPServer.start()
        let actor = server.url("/users/dana")
        let fetcher = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true))
        let f = try await InboxFixture(profiles: FetchedActorProfiles(fetcher: fetcher, waitSeconds: 600))
        let json: [(String, String)] = [("Content-Type", "application/activity+json")]
        server.set("/users/dana", .page(headers: json, body: Self.document([
            "id": actor, "type": "Person", "inbox": actor + "/inbox", "endpoints": ["sharedInbox": server.url("/inbox")]])))
        let follow = InboxFixture.activity("Follow", actor: actor, object: f.alice)
        let answer = try await f.post(follow, keyID: actor + "#main-key")
        #expect(answer.status == 202, "\(answer.text)")
        #expect(f.actions.followers.map(\.inbox) == [actor + "/inbox"])
        #expect(f.actions.followers.map(\.sharedInbox) == [server.url("/inbox")])

        // A document that sends deliveries to another host: refused, nothing kept.
        server.set("/users/dana", .page(headers: json, body: Self.document(["id": actor, "inbox": "https://victim.example/inbox"])))
        #expect(try await f.post(InboxFixture.activity("Undo", actor: actor, object: f.actions.followers[0].followID),
                                 keyID: actor + "#main-key").status == 202)
        let refused = try await f.post(follow, keyID: actor + "#main-key")
        #expect(refused.status == 400 && refused.text.contains("no inbox"))
        #expect(f.actions.followers.isEmpty)
        await f.close()
        try await server.close()
    }
}
