import BlogModel
import Foundation
import Testing
@testable import blogd

/// What the delivery worker sends, as blogd renders it: the actor pages'
/// documents with the agreed ids.
@Suite struct NoteActivityRendererTests {
    let user = UserRecord(id: 1, name: "alice", passwordHash: "x", createdAt: Date(timeIntervalSince1970: 0))
    let at = Date(timeIntervalSince1970: 1_800_000_000.123)

    func post() -> PostRecord {
        PostRecord(id: 7, userID: 1, title: "Hello", content: "From blogd", createdAt: at, weight: 1)
    }

    func activity(_ kind: ActivityKind) -> QueuedActivity {
        QueuedActivity(id: 1, userID: 1, postID: 7, kind: kind, queuedAt: at)
    }

    @Test func createUpdateAndDeleteCarryTheAgreedIds() throws {
        let renderer = NoteActivityRenderer()
        let object = "http://blog.test/ap/alice/posts/7"
        let create = try #require(renderer.render(activity(.create), user: user, post: post(), baseURL: "http://blog.test/"))
        #expect(create.contains("\"id\":\"\(object)#create\",\"type\":\"Create\""), "\(create)")
        #expect(create.contains("\"id\":\"\(object)\",\"type\":\"Note\""))
        #expect(create.contains("From blogd"))
        let update = try #require(renderer.render(activity(.update), user: user, post: post(), baseURL: "http://blog.test/"))
        #expect(update.contains("\"id\":\"\(object)#update-1800000000123\",\"type\":\"Update\""), "\(update)")
        let delete = try #require(renderer.render(activity(.delete), user: user, post: nil, baseURL: "http://blog.test/"))
        #expect(delete.contains("\"id\":\"\(object)#delete\",\"type\":\"Delete\""), "\(delete)")
        #expect(delete.contains("\"type\":\"Tombstone\""))
        // A post gone since its Create was queued: its Delete says it.
        #expect(renderer.render(activity(.create), user: user, post: nil, baseURL: "http://blog.test/") == nil)
    }
}
