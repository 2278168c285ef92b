import BlogFetch
import BlogInboxFarm
import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The inbox farm itself, over real sockets: each host answers as its
/// behaviour says, serves its actors, counts what it got, and tells good
/// signatures from bad.
@Suite struct InboxFarmTests {
    static let fetcher = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true))

    func post(_ url: String, headers: [(String, String)] = []) async throws -> Int {
        try await Self.fetcher.post(url, headers: [("Content-Type", "application/activity+json")] + headers,
                                    body: Array(#"{"type":"Create"}"#.utf8)).status
    }

    @Test func eachHostAnswersAsItsBehaviourSays() async throws {
        let farm = try InboxFarm(hosts: 4, behaviour: { index in
            [FarmBehaviour.failFirst(2, status: 502), .refuse(status: 404), .slow(seconds: 0.01), .accept][index]
        })
        defer { farm.stop() }
        let hosts = farm.hosts
        #expect(Set(hosts.map(\.address)) == ["127.1.0.1", "127.1.0.2", "127.1.0.3", "127.1.0.4"])
        #expect(try await post(hosts[0].sharedInbox) == 502)
        #expect(try await post(hosts[0].sharedInbox) == 502)
        #expect(try await post(hosts[0].inbox("bob")) == 202)
        #expect(try await post(hosts[1].sharedInbox) == 404)
        #expect(try await post(hosts[2].sharedInbox) == 202)
        #expect(try await post(hosts[3].inbox("carol")) == 202)
        #expect(farm.record(host: 0).received == 3 && farm.record(host: 0).refused == 2 && farm.record(host: 0).accepted == 1)
        #expect(farm.record(host: 0).byPath == ["/inbox": 2, "/users/bob/inbox": 1])
        #expect(farm.record(host: 1).refused == 1 && farm.record(host: 2).accepted == 1)
        let totals = farm.totals
        #expect(totals.received == 6 && totals.accepted == 3 && totals.refused == 3 && totals.inFlight == 0)

        let actor = try await Self.fetcher.get(hosts[3].actor("carol"), accept: "application/activity+json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(actor.body)) as? [String: Any])
        #expect(document["id"] as? String == hosts[3].actor("carol"))
        #expect(document["inbox"] as? String == hosts[3].inbox("carol"))
        #expect((document["endpoints"] as? [String: String])?["sharedInbox"] == hosts[3].sharedInbox)
        #expect(try await Self.fetcher.get(hosts[3].base + "/nothing").status == 404)
    }

    @Test func signaturesAreCheckedByKeyID() async throws {
        let pair = try ActorKeyPair.generate(), other = try ActorKeyPair.generate()
        let keyID = "http://blog.test/ap/alice#main-key"
        // The check's clock stands at the signing time: on a starved
        // machine the posts may go minutes later, past the Date window,
        // and that window is not what this test is about. Signed an hour
        // ago, so that the check must use that clock, not the wall's.
        let signedAt = Date().addingTimeInterval(-3600)
        let farm = try InboxFarm(hosts: 1, check: try FarmSignatureCheck(keys: [keyID: pair.publicKeyPEM],
                                                                         now: { signedAt }))
        defer { farm.stop() }
        let url = farm.hosts[0].sharedInbox
        let body = Array(#"{"type":"Create"}"#.utf8)
        func signed(by key: ActorKeyPair, as id: String) throws -> [(String, String)] {
            try HTTPSignatureSigner.sign(method: "POST", url: url, body: body, keyID: id, privateKey: key.privateKey, now: signedAt)
                .filter { $0.0.lowercased() != "host" }
        }
        for headers in [try signed(by: pair, as: keyID), try signed(by: other, as: keyID),
                        try signed(by: pair, as: "http://elsewhere.test/ap/x#main-key"), []] {
            _ = try await Self.fetcher.post(url, headers: [("Content-Type", "application/activity+json")] + headers,
                                            body: body)
        }
        #expect(farm.totals.verified == 1 && farm.totals.badSignatures == 3, "\(farm.signatureProblems)")
        #expect(farm.signatureProblems.count == 3)
    }
}
