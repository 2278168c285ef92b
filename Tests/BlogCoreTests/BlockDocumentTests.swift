import BlogPages
import Foundation
import Testing

/// The `Block` sent to a blocked follower and the `Undo` of it, as
/// Mastodon reads them.
@Suite struct BlockDocumentTests {
    let urls = ActivityURLs(base: "https://blog.example/")
    let bob = "https://social.example/users/bob"
    let blockedAt = Date(timeIntervalSince1970: 1_800_000_000.25)

    func json(_ document: ActivityJSON) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(document.bytes)) as? [String: Any])
    }

    @Test func aBlockNamesTheActorAndItsUndoEmbedsIt() throws {
        let block = try json(ActivityDocuments.block(bob, by: "alice", at: blockedAt, urls: urls))
        let id = try #require(block["id"] as? String)
        #expect(id.wholeMatch(of: /https:\/\/blog\.example\/ap\/alice#block-[0-9a-f]{16}-1800000000250/) != nil, "\(id)")
        #expect(block["type"] as? String == "Block" && block["actor"] as? String == "https://blog.example/ap/alice")
        #expect(block["object"] as? String == bob && block["@context"] != nil)

        let undo = try json(ActivityDocuments.undoBlock(bob, by: "alice", blockedAt: blockedAt, urls: urls))
        #expect(undo["type"] as? String == "Undo" && undo["actor"] as? String == "https://blog.example/ap/alice")
        #expect(undo["id"] as? String == id.replacingOccurrences(of: "#block-", with: "#unblock-"))
        let inner = try #require(undo["object"] as? [String: Any])
        #expect(inner["id"] as? String == id && inner["type"] as? String == "Block" && inner["object"] as? String == bob)
    }

    @Test func anotherBlockOfTheSameActorIsAnotherBlock() {
        let first = ActivityDocuments.blockID(bob, by: "alice", at: blockedAt, urls: urls)
        let later = ActivityDocuments.blockID(bob, by: "alice", at: blockedAt.addingTimeInterval(60), urls: urls)
        let other = ActivityDocuments.blockID(bob + "x", by: "alice", at: blockedAt, urls: urls)
        #expect(Set([first, later, other]).count == 3)
    }
}
