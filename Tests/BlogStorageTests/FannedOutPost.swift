import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Alice (made here) with followers on their own inboxes,
/// `https://HOST.example/uN/inbox`, `count` of each host in the order
/// given, and her post fanned out to all of them with body `{}`: what
/// the delivery queue's conformance tests start from.
func fanOutAlicesPost(_ store: any BlogStorage, inboxes: [(host: String, count: Int)]) throws {
    let actors = inboxes.flatMap { host, count in (0..<count).map { "https://\(host).example/u\($0)" } }
    let activity = try alicesPost(store, followers: actors)
    #expect(try store.fanOut(activity, body: "{}", at: t0) == actors.count)
}

/// Alice (made here) followed by `followers` (actor ids, each with its
/// own inbox, `ACTOR/inbox`), and her post's activity, queued and not
/// yet fanned out.
func alicesPost(_ store: any BlogStorage, followers: [String]) throws -> QueuedActivity {
    store.queueActivities(true)
    let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
    for actor in followers {
        _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                  followID: actor + "#follow", accepted: true, at: t0)
    }
    _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
    return try #require(try store.queuedActivities(limit: 9).first)
}
