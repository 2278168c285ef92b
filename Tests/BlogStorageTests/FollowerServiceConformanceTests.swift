@testable import BlogCore
import BlogTestSupport
import Foundation
import Logging
import Synchronization
import Testing
import BlogModel
import BlogPages

/// Followers and blocks through the service over each backend: the one
/// API the web client and the admin commands call. Approving queues the
/// `Accept`, refusing and removing a `Reject` (each the JSON the inbox's
/// peers read), each wakes the delivery worker; blocks remove what they
/// cover, from the pages too; every refusal changes nothing.
@Suite("BlogService conformance: followers and blocks")
struct FollowerServiceConformanceTests {
    static let base = "https://blog.example/"

    final class Wakes: Sendable {
        let count = Atomic<Int>(0)
    }

    private func withService(_ backend: Backend,
                             _ body: (BlogService, any BlogStorage, URL, UserRecord) throws -> Void) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                          settings: .init(scrypt: .testing, baseURL: Self.base), logger: quiet)
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
            try body(service, store, folder, try #require(try store.user(named: "alice")))
        }
    }

    private func follow(_ store: any BlogStorage, _ user: UserRecord, _ actor: String, accepted: Bool) throws {
        _ = try store.addFollower(userID: user.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                  followID: actor + "/follow/1", accepted: accepted, at: t0)
    }

    /// The queued answers, parsed: kind, inbox, the JSON's type, id, actor, and its Follow's id.
    private func answers(_ store: any BlogStorage) throws -> [(DeliveryKind, String, [String: Any])] {
        try store.queuedDeliveries(limit: 100).filter { $0.kind != .post }.map { delivery in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any])
            return (delivery.kind, delivery.inbox, json)
        }
    }

    @Test(arguments: Backend.available) func approveRefuseAndRemoveQueueTheirAnswers(_ backend: Backend) throws {
        try withService(backend) { service, store, _, alice in
            let wakes = Wakes()
            service.activitiesQueued { wakes.count.add(1, ordering: .relaxed) }
            let bob = "https://m.example/users/bob", carol = "https://p.example/carol", dave = "https://q.example/dave"
            try follow(store, alice, bob, accepted: false)
            try follow(store, alice, carol, accepted: false)
            try follow(store, alice, dave, accepted: true)
            #expect(try service.followerCount(of: "alice") == 3 && service.followerCount(of: "alice", state: .pending) == 2)
            #expect(try service.followers(of: "ALICE", state: .pending).map(\.actorID) == [carol, bob], "newest first")
            #expect(try service.followers(of: "alice", offset: 1, limit: 1).map(\.actorID) == [carol])
            #expect(try service.followers(of: "alice", limit: 10_000).count == 3, "a limit is clamped, not refused")

            let approved = try service.approveFollower(bob, of: "alice")
            #expect(approved.state == .accepted && wakes.count.load(ordering: .relaxed) == 1)
            let accept = try #require(try answers(store).first)
            #expect(accept.0 == .accept && accept.1 == bob + "/inbox")
            #expect(accept.2["type"] as? String == "Accept" && accept.2["actor"] as? String == Self.base + "ap/alice")
            #expect((accept.2["object"] as? [String: Any])?["id"] as? String == bob + "/follow/1")
            #expect((accept.2["id"] as? String)?.hasPrefix(Self.base + "ap/alice#accept-") == true)

            #expect(throws: FollowerModerationError.notPending(bob)) { try service.approveFollower(bob, of: "alice") }
            #expect(throws: FollowerModerationError.notPending(dave)) { try service.refuseFollower(dave, of: "alice") }
            #expect(throws: FollowerModerationError.noSuchFollower("https://x.example/u")) {
                try service.approveFollower("https://x.example/u", of: "alice")
            }
            #expect(throws: FollowerModerationError.noSuchUser("nobody")) { try service.approveFollower(bob, of: "nobody") }
            #expect(try answers(store).count == 1, "a refusal queues nothing")

            try service.refuseFollower(carol, of: "alice")
            try service.removeFollower(dave, of: "alice")
            #expect(throws: FollowerModerationError.noSuchFollower(dave)) { try service.removeFollower(dave, of: "alice") }
            let queued = try answers(store)
            #expect(queued.map(\.0) == [.accept, .reject, .reject])
            #expect(queued.map(\.1) == [bob + "/inbox", carol + "/inbox", dave + "/inbox"])
            #expect(queued[2].2["type"] as? String == "Reject")
            #expect((queued[2].2["id"] as? String)?.hasPrefix(Self.base + "ap/alice#reject-") == true)
            #expect((queued[2].2["object"] as? [String: Any])?["actor"] as? String == dave)
            #expect(wakes.count.load(ordering: .relaxed) == 3)
            #expect(try service.followers(of: "alice").map(\.actorID) == [bob])
        }
    }

    @Test(arguments: Backend.available) func receivedFollowsFollowTheSetting(_ backend: Backend) throws {
        try withService(backend) { service, store, _, alice in
            #expect(try service.approvesFollowersByHand(of: "alice") == false)
            let bob = "https://m.example/users/bob"
            let kept = try service.receiveFollow(userID: alice.id, user: "alice", actor: bob, inbox: bob + "/inbox",
                                                 sharedInbox: "https://m.example/inbox", followID: bob + "/f/1", accept: true)
            #expect(try kept.state == .accepted && answers(store).map(\.0) == [.accept])
            try service.setApprovesFollowersByHand(true, of: "alice")
            #expect(try service.approvesFollowersByHand(userID: alice.id))
            let carol = "https://p.example/carol"
            let waiting = try service.receiveFollow(userID: alice.id, user: "alice", actor: carol, inbox: carol + "/inbox",
                                                    sharedInbox: nil, followID: carol + "/f/1", accept: false)
            #expect(try waiting.state == .pending && answers(store).count == 1)
            // Turning approval off accepts no one by itself.
            try service.setApprovesFollowersByHand(false, of: "alice")
            #expect(try service.followerCount(of: "alice", state: .pending) == 1 && answers(store).count == 1)
            #expect(throws: FollowerModerationError.noSuchUser("nobody")) {
                try service.setApprovesFollowersByHand(true, of: "nobody")
            }
        }
    }

    @Test(arguments: Backend.available) func blocksRemoveWhatTheyCoverFromThePagesToo(_ backend: Backend) throws {
        try withService(backend) { service, store, folder, alice in
            var session = Session(peerAddress: "192.0.2.1")
            _ = service.handle(message: Array("login:alice:pw".utf8), session: &session)
            #expect(service.handle(message: Array("newpost:alice:Hello:text".utf8), session: &session).reply == .posted)
            let post = try #require(try store.newestPosts(ofUserID: alice.id).first)
            let bob = "https://social.example/users/bob", eve = "https://sub.social.example/users/eve"
            for actor in [bob, eve, "https://other.example/u/f"] {
                try follow(store, alice, actor, accepted: true)
                _ = try store.storeFediverseResponse(FediverseResponse(
                    userID: alice.id, postID: post.id, actorID: actor, source: actor + "/like/1",
                    target: Self.base + "alice/\(post.id).html", content: WebmentionContent(kind: .like), approved: true), at: t0)
            }
            try service.rewriteResponses(ofUserID: alice.id, postID: post.id)
            let page = folder.appendingPathComponent("alice/\(post.id).html")
            #expect(try String(contentsOf: page, encoding: .utf8).contains("3 likes"))

            let removed = try service.block(.domain("Social.Example"), of: "alice")
            #expect(removed.followers == 2 && removed.responses == 2)
            #expect(try String(contentsOf: page, encoding: .utf8).contains("1 like"), "the page no longer counts them")
            #expect(try service.followers(of: "alice").map(\.actorID) == ["https://other.example/u/f"])
            #expect(try store.isBlocked(userID: alice.id, actorID: eve))
            try service.block(.actor("https://other.example/u/f"), of: "alice")
            #expect(try service.blocks(of: "alice").map(\.target).contains(.actor("https://other.example/u/f")))
            #expect(try service.blocks(of: "alice").count == 2)
            try service.unblock(.domain("social.example"), of: "alice")
            #expect(throws: FollowerModerationError.noSuchBlock("social.example")) {
                try service.unblock(.domain("social.example"), of: "alice")
            }
            #expect(try service.blocks(of: "alice").map(\.target) == [.actor("https://other.example/u/f")])
            let sent = try answers(store)
            let rejects = sent.filter { $0.0 == .reject }
            #expect(rejects.count == 3, "each removed follower's server is told")
            // The follower blocked as an actor is sent a Block too (a domain
            // block sends none); lifting a domain block sends nothing.
            let blocks = sent.filter { $0.0 != .reject }
            #expect(blocks.map(\.0) == [.block] && blocks.first?.1 == "https://other.example/u/f/inbox")
            #expect(blocks.first?.2["type"] as? String == "Block" && blocks.first?.2["object"] as? String == "https://other.example/u/f")
            #expect(rejects.map(\.1).sorted() == [bob + "/inbox", "https://other.example/u/f/inbox", eve + "/inbox"].sorted())
            #expect(rejects.allSatisfy { $0.2["type"] as? String == "Reject" })
        }
    }
}
