import Foundation
import GRDB
import Testing
import BlogTestSupport
@testable import BlogCore
@testable import BlogSQLite

/// Which answers hold a host back, and that the queries of the per-host
/// limits read SQLite's indexes, not the table.
@Suite("Delivery host backoff: answers and query plans")
struct DeliveryHostBackoffPlanTests {
    @Test func aHostThatDidNotAnswerIsHeldBackOneThatAnsweredIsNot() {
        for status in [408, 429, 500, 502, 503, 504, 599] {
            #expect(ActivityDelivery.outcome(status: status) == .hostDown, "\(status)")
        }
        for status in [401, 403] {
            #expect(ActivityDelivery.outcome(status: status) == .retry, "\(status): it answered; our key may be late")
        }
        for status in [400, 404, 405, 413, 422] {
            #expect(ActivityDelivery.outcome(status: status) == .givenUp, "\(status)")
        }
        #expect(ActivityDelivery.outcome(status: 410) == .gone)
        #expect(ActivityDelivery.outcome(status: 202) == .delivered)
    }

    /// The plan's detail lines for `sql`.
    private func plan(_ sql: String, _ arguments: StatementArguments) throws -> String {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            return try store.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                    .map { $0["detail"] as String }.joined(separator: "\n")
            }
        }
    }

    @Test func aClaimPassingHostsByReadsOnlyTheDueIndex() throws {
        let detail = try plan(SQLiteStore.cappedCandidates(skipping: 2), [0, "a.example", "b.example", 64])
        #expect(detail.contains("USING COVERING INDEX activity_deliveries_by_due"), "\(detail)")
        #expect(!detail.contains("TEMP B-TREE"), "in due order as the index is: \(detail)")
    }

    @Test func holdingAHostBackReadsItsRowsByHost() throws {
        let detail = try plan(SQLiteStore.holdBackHost, [60, "a.example", 5, "https://a.example", "https://a.example/", 200])
        #expect(detail.contains("USING INDEX activity_deliveries_by_host"), "\(detail)")
    }
}
