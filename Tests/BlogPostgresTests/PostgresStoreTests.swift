import BlogCore
import BlogTestSupport
import Foundation
import Testing
@testable import BlogPostgres
import BlogSQLite
import BlogModel

/// `PostgresStore` does what `SQLiteStore` does (SQLiteStoreTests), where it
/// applies.
@Suite("PostgresStore", .enabled(if: PostgresCluster.enabled))
struct PostgresStoreTests {
    /// Other constraint failures keep their SQLSTATE in the message.
    @Test func otherFailuresKeepTheirSQLState() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            let error = storageError { _ = try store.createUser(name: String(repeating: "a", count: 33), passwordHash: "h", at: t0) }
            guard case .postgres(let state, _) = error else {
                Issue.record("expected a SQLSTATE, got \(String(describing: error))")
                return
            }
            #expect(state == "23514", "check_violation")
        }
    }

    /// A photo that cannot be attached is the server's answer to a
    /// statement: the insert rolled back, and there is nothing to settle
    /// (its token was never stored). A post with photos holds its token
    /// like any other.
    @Test func photoRefusalsNeedNoSettling() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            #expect(!PostgresFailure.mayHaveCommitted(.unknownPhoto))
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let photo = testPhoto()
            try store.storePhoto(photo, userID: alice.id, image: fakeJPEG(), thumbnail: fakeJPEG(seed: 2), at: t0)
            func insert(_ photos: [String], token: UUID) throws -> PostRecord {
                try store.insertPost(userID: alice.id, title: "t", content: "", weight: 1, place: nil, photos: photos,
                                     at: t0, layout: PageLayout(pageSize: 5), token: token).record
            }
            let refused = UUID()
            #expect(storageError { _ = try insert([photo.name, PostPhoto.newName()], token: refused) } == .unknownPhoto)
            #expect(try store.claimPostToken(refused) == nil)
            let token = UUID()
            let post = try insert([photo.name], token: token)
            #expect(try store.claimPostToken(token) == post.id)
            #expect(try store.rows("SELECT post_id FROM photos") { try $0.decode(Int64?.self) } == [post.id])
        }
    }

    @Test func sessionsCommitDurably() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            let setting = try store.rows("SHOW synchronous_commit") { try $0.decode(String.self) }
            #expect(setting == ["on"])
            try store.ping()
        }
    }

    @Test func unreachableDatabaseFailsAtOnce() throws {
        let cluster = try PostgresCluster.shared()
        let missing = cluster.url(database: "no_such_database")
        let error = storageError { _ = try openStore(missing) }
        guard case .cannotOpen(let path, let reason) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(path.contains("no_such_database"))
        #expect(reason.contains("3D000"), "invalid_catalog_name: \(reason)")
        let refused = "postgres://blogd@127.0.0.1:\(try PostgresCluster.freePort())/x?sslmode=disable"
        guard case .cannotOpen = storageError({ _ = try openStore(refused) }) else {
            Issue.record("expected cannotOpen for a closed port")
            return
        }
    }
}
