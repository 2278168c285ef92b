import Foundation
import GRDB
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogSQLite

/// A database from before block notices (v21): migration v23 makes the
/// deliveries' table anew to widen its `kind`, keeping every row, id and
/// the id sequence (an id deleted before is not given again), and the
/// blocks there were get an empty inbox.
@Suite("Block notice migration")
struct BlockNoticeMigrationTests {
    @Test func deliveriesAndBlocksSurviveTheMigration() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            do {
                let pool = try DatabasePool(path: path)
                try Schema.migrator(layout: PageLayout(pageSize: 50)).migrate(pool, upTo: "v21-follow-answers")
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00.000')")
                    try db.execute(sql: "INSERT INTO actor_blocks (user_id, kind, value, created_at) VALUES (1, 'domain', 'spam.example', 5)")
                    for (index, kind) in ["post", "accept", "reject"].enumerated() {
                        try db.execute(sql: """
                            INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, attempts, due_at,
                                                             created_at, kind)
                            VALUES (?, 1, 0, ?, 'social.example', '{}', 2, 7, 3, ?)
                            """, arguments: [-(index + 1), "https://social.example/\(index)/inbox", kind])
                    }
                    try db.execute(sql: "DELETE FROM activity_deliveries WHERE kind = 'reject'")
                }
                try pool.close()
            }
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let kept = try store.queuedDeliveries(limit: 9)
            #expect(kept.map(\.id) == [1, 2] && kept.map(\.kind) == [.post, .accept])
            #expect(kept.allSatisfy { $0.attempts == 2 && $0.body == "{}" && $0.host == "social.example" })
            #expect(try store.blocks(ofUserID: 1).map(\.target) == [.domain("spam.example")])
            // The sequence goes on from 3 (the deleted reject's), and the new kinds are taken.
            _ = try store.addFollower(userID: 1, actorID: "https://social.example/bob", inbox: "https://social.example/bob/inbox",
                                      sharedInbox: nil, followID: "f", accepted: true, at: Date())
            _ = try store.block(userID: 1, .actor("https://social.example/bob"), at: Date(), reject: { _ in "r" },
                                notice: { _ in "b" })
            let ids = try store.queuedDeliveries(limit: 9).filter { $0.kind == .reject || $0.kind == .block }.map(\.id)
            #expect(ids.count == 2 && ids.allSatisfy { $0 > 3 }, "\(ids)")
        }
    }
}
