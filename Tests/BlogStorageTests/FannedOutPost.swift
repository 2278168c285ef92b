import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Alice (made here) with followers on their own inboxes,
/// `https://HOST.example/uN/inbox`, `count` of each host in the order
/// given, and her post fanned out to all of them with body `{}`: what
/// the delivery queue's conformance tests start from.
func fanOutAlicesPost(_ store: any BlogStorage, inboxes: [(host: String, count: Int)]) throws {
    store.queueActivities(true)
    let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
    for (host, count) in inboxes {
        for index in 0..<count {
            let actor = "https://\(host).example/u\(index)"
            _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                      followID: actor + "#follow", accepted: true, at: t0)
        }
    }
    _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
    let activity = try #require(try store.queuedActivities(limit: 9).first)
    #expect(try store.fanOut(activity, body: "{}", at: t0) == inboxes.reduce(0) { $0 + $1.count })
}
