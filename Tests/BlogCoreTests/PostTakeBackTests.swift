import BlogWire
import BlogTestSupport
import Foundation
import Synchronization
import Testing
import BlogModel
@testable import BlogCore

/// A `post:ERR` is true in the end: a post whose commit's answer was lost
/// is taken back once the database answers again.
@Suite("Post take-back")
struct PostTakeBackTests {
    /// Posts that commit but whose answer is lost while `losing`, and a
    /// database that stays away for the first `claimsToFail` claims.
    final class LostAnswers: ForwardingStorage, @unchecked Sendable {
        let losing = Atomic<Bool>(true)
        let claimsToFail = Atomic<Int>(2)
        /// Lost answers whose post did land.
        let landed = Mutex<[UUID: Int64]>([:])
        /// Whether each lost insert lands (alternately, from the first).
        private let lands = Atomic<Int>(0)

        override func insertPost(userID: Int64, title: String, content: String, contentHTML: String?,
                                 categories: [String], weight: Int, place: Place?, photos: [PhotoAttachment], at date: Date, layout: PageLayout,
                                 token: UUID) throws(StorageError) -> NewPost {
            guard losing.load(ordering: .relaxed) else {
                return try super.insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML,
                                            categories: categories, weight: weight, place: place, photos: photos, at: date, layout: layout,
                                            token: token)
            }
            if lands.wrappingAdd(1, ordering: .relaxed).oldValue % 2 == 0 {
                let stored = try super.insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML,
                                                  categories: categories, weight: weight, place: place, photos: photos, at: date, layout: layout,
                                                  token: token)
                landed.withLock { $0[token] = stored.record.id }
            }
            throw .outcomeUnknown
        }

        override func claimPostToken(_ token: UUID) throws(StorageError) -> Int64? {
            if claimsToFail.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 { throw .failed("the database is away") }
            return landed.withLock { $0[token] }
        }
    }


    @Test func aPostAnsweredFailedIsTakenBackOnceTheDatabaseAnswers() throws {
        let storage = Mutex<LostAnswers?>(nil)
        try withService(openPosting: true, storage: { store in
            let lost = LostAnswers(store)
            storage.withLock { $0 = lost }
            return lost
        }) { (fx: ServiceFixture) throws in
            let lost = try #require(storage.withLock { $0 })
            #expect(fx.send("register:alice:pw") == .registered)
            #expect(fx.send("newpost:alice:landed:text") == .postFailed)
            #expect(fx.send("newpost:alice:never:text") == .postFailed)
            // The first landed: the database holds it until it is taken back.
            #expect(lost.landed.withLock { $0.count } == 1)
            #expect(waitUntil(timeout: 60) { fx.service.postsToTakeBack == 0 }, "settled once the claims go through")
            let titles = try fx.store.posts(ofUserID: try #require(try fx.store.user(named: "alice")?.id)).map(\.title)
            #expect(titles.isEmpty, "\(titles)")
            #expect(fx.page("alice")?.contains("landed") == false)

            lost.losing.store(false, ordering: .relaxed)
            #expect(fx.send("newpost:alice:kept:text") == .posted)
            #expect(fx.page("alice")?.contains("\">kept</a></h2>") == true)
        }
    }
}
